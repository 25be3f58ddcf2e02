/// One level of a Realtime Database rules tree: its `.read`/`.write`/`.validate` rules, `.indexOn`, named children
/// and at most one `$wildcard` child.
final class DatabaseRuleNode: Sendable {
    /// A rule: a constant (`true`) or an expression string, with where it is written.
    struct Rule: Sendable {
        var constant: Bool?
        var expression: Expression?
        var location: SourceLocation
    }

    let read: Rule?
    let write: Rule?
    let validate: Rule?
    let indexOn: [String]
    let children: [String: DatabaseRuleNode]
    let wildcard: (name: String, node: DatabaseRuleNode)?

    init(
        read: Rule?, write: Rule?, validate: Rule?, indexOn: [String], children: [String: DatabaseRuleNode],
        wildcard: (name: String, node: DatabaseRuleNode)?
    ) {
        self.read = read
        self.write = write
        self.validate = validate
        self.indexOn = indexOn
        self.children = children
        self.wildcard = wildcard
    }

    /// The rules for child `key`: a named child wins over the wildcard, as in Firebase.
    func child(_ key: String) -> (node: DatabaseRuleNode, binding: (String, String)?)? {
        if let named = children[key] { return (named, nil) }
        if let wildcard { return (wildcard.node, (wildcard.name, key)) }
        return nil
    }
}
