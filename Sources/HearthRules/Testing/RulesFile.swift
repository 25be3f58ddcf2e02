/// A compiled rules file of either language: Firestore rules text (documents, or storage when it declares
/// `service firebase.storage`), or Realtime Database JSON (a file whose first non-blank character is `{`).
public enum RulesFile: Sendable {
    /// Firestore rules (`service cloud.firestore { … }`).
    case firestore(FirestoreRuleset)
    /// Storage rules (`service firebase.storage { … }`), the same language.
    case storage(StorageRuleset)
    /// Realtime Database rules (`{"rules": {…}}`).
    case database(DatabaseRuleset)

    /// Compiles `source`, choosing the language from its first character.
    public init(source: String) throws(RulesSyntaxError) {
        var isJSON = false
        var inComment = false
        var previous: Character = " "
        for character in source {
            if inComment {
                if character == "\n" { inComment = false }
            } else if previous == "/" && character == "/" {
                inComment = true
            } else if !character.isWhitespace && character != "/" {
                isJSON = character == "{"
                break
            }
            previous = character
        }
        if isJSON {
            self = .database(try DatabaseRuleset(source: source))
        } else if source.firstRange(of: #/service\s+firebase\.storage/#) != nil {
            self = .storage(try StorageRuleset(source: source))
        } else {
            self = .firestore(try FirestoreRuleset(source: source))
        }
    }

    /// The source text.
    public var source: String {
        switch self {
        case .firestore(let rules): rules.source
        case .storage(let rules): rules.source
        case .database(let rules): rules.source
        }
    }
}
