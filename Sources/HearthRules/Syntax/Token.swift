/// One lexical token of the rules languages (the Firestore language and the Realtime Database expression language
/// share one lexer).
struct Token: Sendable, Equatable {
    /// What kind of token this is.
    enum Kind: Sendable, Equatable {
        case identifier(String)
        case integer(Int64)
        case float(Double)
        case string(String)
        /// Punctuation or an operator, such as `{`, `==`, `&&`.
        case symbol(String)
        case end
    }

    var kind: Kind
    var location: SourceLocation

    /// Whether this is the symbol `text`.
    func isSymbol(_ text: String) -> Bool {
        if case .symbol(let s) = kind { return s == text }
        return false
    }

    /// Whether this is the identifier (or keyword) `text`.
    func isIdentifier(_ text: String) -> Bool {
        if case .identifier(let s) = kind { return s == text }
        return false
    }

    /// How the token reads in an error message.
    var display: String {
        switch kind {
        case .identifier(let s): return "'\(s)'"
        case .integer(let i): return "'\(i)'"
        case .float(let d): return "'\(d)'"
        case .string: return "string literal"
        case .symbol(let s): return "'\(s)'"
        case .end: return "end of file"
        }
    }
}
