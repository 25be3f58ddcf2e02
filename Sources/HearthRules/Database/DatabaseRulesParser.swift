/// Parses a Realtime Database rules file — JSON with `//` and `/* */` comments allowed, as the Firebase console
/// accepts — into a ``DatabaseRuleNode`` tree, compiling each rule string as an expression.
struct DatabaseRulesParser {
    private var lexer: Lexer
    private var current: Token
    private var depth = 0

    init(source: String) throws(RulesSyntaxError) {
        guard source.utf8.count <= FirestoreParser.maximumSourceBytes else {
            throw RulesSyntaxError("rules file larger than 256 KiB", at: SourceLocation(line: 1, column: 1))
        }
        lexer = Lexer(source)
        current = try lexer.next()
    }

    private mutating func advance() throws(RulesSyntaxError) { current = try lexer.next() }

    private mutating func expect(_ symbol: String, _ context: String) throws(RulesSyntaxError) {
        guard current.isSymbol(symbol) else {
            throw RulesSyntaxError("expected '\(symbol)' \(context), found \(current.display)", at: current.location)
        }
        try advance()
    }

    mutating func parse() throws(RulesSyntaxError) -> DatabaseRuleNode {
        try expect("{", "to open the rules file")
        var rules: DatabaseRuleNode?
        while !current.isSymbol("}") {
            guard case .string(let key) = current.kind else {
                throw RulesSyntaxError("expected a quoted key, found \(current.display)", at: current.location)
            }
            let keyLocation = current.location
            try advance()
            try expect(":", "after the key")
            guard key == "rules" else {
                throw RulesSyntaxError("unknown top-level key '\(key)' (expected \"rules\")", at: keyLocation)
            }
            rules = try parseNode()
            if current.isSymbol(",") {
                try advance()
            } else if !current.isSymbol("}") {
                throw RulesSyntaxError("expected ',' or '}', found \(current.display)", at: current.location)
            }
        }
        try advance()
        guard case .end = current.kind else {
            throw RulesSyntaxError("unexpected \(current.display) after the rules object", at: current.location)
        }
        guard let rules else {
            throw RulesSyntaxError("missing \"rules\" object", at: SourceLocation(line: 1, column: 1))
        }
        return rules
    }

    private mutating func parseNode() throws(RulesSyntaxError) -> DatabaseRuleNode {
        depth += 1
        defer { depth -= 1 }
        guard depth <= 64 else { throw RulesSyntaxError("rules nested too deeply", at: current.location) }
        try expect("{", "to open a rules object")
        var read: DatabaseRuleNode.Rule?
        var write: DatabaseRuleNode.Rule?
        var validate: DatabaseRuleNode.Rule?
        var indexOn: [String] = []
        var children: [String: DatabaseRuleNode] = [:]
        var wildcard: (name: String, node: DatabaseRuleNode)?
        while !current.isSymbol("}") {
            guard case .string(let key) = current.kind else {
                throw RulesSyntaxError("expected a quoted key, found \(current.display)", at: current.location)
            }
            let keyLocation = current.location
            try advance()
            try expect(":", "after the key '\(key)'")
            switch key {
            case ".read": read = try parseRule()
            case ".write": write = try parseRule()
            case ".validate": validate = try parseRule()
            case ".indexOn": indexOn = try parseIndexOn()
            default:
                if key.hasPrefix(".") {
                    throw RulesSyntaxError(
                        "unknown rule '\(key)' (expected .read, .write, .validate or .indexOn)", at: keyLocation)
                }
                guard !key.isEmpty, !key.contains("/") else {
                    throw RulesSyntaxError("invalid child key '\(key)'", at: keyLocation)
                }
                let node = try parseNode()
                if key.hasPrefix("$") {
                    if let existing = wildcard {
                        throw RulesSyntaxError(
                            "two wildcards at one level ('\(existing.name)' and '\(key)')", at: keyLocation)
                    }
                    wildcard = (key, node)
                } else {
                    children[key] = node
                }
            }
            if current.isSymbol(",") {
                try advance()
            } else if !current.isSymbol("}") {
                throw RulesSyntaxError("expected ',' or '}', found \(current.display)", at: current.location)
            }
        }
        try advance()
        return DatabaseRuleNode(
            read: read, write: write, validate: validate, indexOn: indexOn, children: children, wildcard: wildcard)
    }

    private mutating func parseRule() throws(RulesSyntaxError) -> DatabaseRuleNode.Rule {
        let location = current.location
        switch current.kind {
        case .identifier("true"), .identifier("false"):
            let value = current.isIdentifier("true")
            try advance()
            return DatabaseRuleNode.Rule(constant: value, expression: nil, location: location)
        case .string(let text):
            try advance()
            do throws(RulesSyntaxError) {
                var parser = try ExpressionParser(source: text, dialect: .database)
                let expression = try parser.parseExpression()
                guard case .end = parser.current.kind else {
                    throw RulesSyntaxError(
                        "unexpected \(parser.current.display) after the expression", at: parser.current.location)
                }
                return DatabaseRuleNode.Rule(
                    constant: nil, expression: Self.relocate(expression, base: location), location: location)
            } catch {
                throw RulesSyntaxError(error.message, at: Self.shift(error.location, base: location))
            }
        default:
            throw RulesSyntaxError("expected a rule string or true/false, found \(current.display)", at: location)
        }
    }

    private mutating func parseIndexOn() throws(RulesSyntaxError) -> [String] {
        if case .string(let single) = current.kind {
            try advance()
            return [single]
        }
        try expect("[", "or a string for .indexOn")
        var keys: [String] = []
        while !current.isSymbol("]") {
            guard case .string(let key) = current.kind else {
                throw RulesSyntaxError("expected a child key string in .indexOn", at: current.location)
            }
            keys.append(key)
            try advance()
            if current.isSymbol(",") { try advance() }
        }
        try advance()
        return keys
    }

    /// Maps a location inside a rule string to the file: the string starts one column after its opening quote.
    static func shift(_ inner: SourceLocation, base: SourceLocation) -> SourceLocation {
        inner.line == 1
            ? SourceLocation(line: base.line, column: base.column + inner.column)
            : SourceLocation(line: base.line + inner.line - 1, column: inner.column)
    }

    /// The expression tree with file locations, so evaluation errors point into the rules file.
    static func relocate(_ e: Expression, base: SourceLocation) -> Expression {
        func r(_ x: Expression) -> Expression { relocate(x, base: base) }
        let kind: Expression.Kind
        switch e.kind {
        case .null, .bool, .integer, .float, .string, .regex, .identifier, .path: kind = e.kind
        case .list(let items): kind = .list(items.map(r))
        case .map(let entries): kind = .map(entries.map { ($0.0, r($0.1)) })
        case .member(let base, let name): kind = .member(r(base), name)
        case .index(let base, let index): kind = .index(r(base), r(index))
        case .slice(let base, let start, let end): kind = .slice(r(base), start.map(r), end.map(r))
        case .call(let name, let args): kind = .call(name, args.map(r))
        case .method(let base, let name, let args): kind = .method(r(base), name, args.map(r))
        case .unary(let op, let x): kind = .unary(op, r(x))
        case .binary(let op, let a, let b): kind = .binary(op, r(a), r(b))
        case .conditional(let a, let b, let c): kind = .conditional(r(a), r(b), r(c))
        case .isType(let x, let type): kind = .isType(r(x), type)
        }
        return Expression(kind, at: shift(e.location, base: base))
    }
}
