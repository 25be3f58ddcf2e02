/// The parsed form of a Firestore rules file (`service cloud.firestore { … }`).
struct FirestoreSyntax: Sendable {
    /// One segment of a `match` pattern.
    enum PatternSegment: Sendable, Equatable {
        case literal(String)
        /// `{name}`: exactly one segment.
        case single(String)
        /// `{name=**}`: zero or more segments (rules_version 2).
        case recursive(String)
    }

    /// A `function name(params) { let …; return expr; }` declaration.
    struct Function: Sendable {
        var name: String
        var parameters: [String]
        var lets: [(String, Expression)]
        var body: Expression
        var location: SourceLocation
    }

    /// An `allow methods: if condition;` statement.
    struct Allow: Sendable {
        var methods: [String]
        /// `nil` for `allow read;`, which grants unconditionally.
        var condition: Expression?
        var location: SourceLocation
    }

    /// A `match /pattern { … }` block.
    final class Match: Sendable {
        let pattern: [PatternSegment]
        let functions: [Function]
        let allows: [Allow]
        let children: [Match]
        let location: SourceLocation

        init(
            pattern: [PatternSegment], functions: [Function], allows: [Allow], children: [Match],
            location: SourceLocation
        ) {
            self.pattern = pattern
            self.functions = functions
            self.allows = allows
            self.children = children
            self.location = location
        }
    }

    var version: String
    var service: String
    var functions: [Function]
    var matches: [Match]
}
