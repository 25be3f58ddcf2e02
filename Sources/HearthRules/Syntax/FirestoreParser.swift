/// Parses a Firestore rules file into ``FirestoreSyntax``, stopping at the first error with its line and column.
struct FirestoreParser {
    /// The largest rules file accepted (Firestore's limit on ruleset source is 256 KiB).
    static let maximumSourceBytes = 256 * 1024

    static let methods: Set<String> = ["read", "write", "get", "list", "create", "update", "delete"]

    private var p: ExpressionParser
    /// The service the file must declare: `cloud.firestore`, or `firebase.storage` for storage rules, which share
    /// this language.
    private let service: String

    init(source: String, service: String = "cloud.firestore") throws(RulesSyntaxError) {
        self.service = service
        guard source.utf8.count <= Self.maximumSourceBytes else {
            throw RulesSyntaxError("rules file larger than 256 KiB", at: SourceLocation(line: 1, column: 1))
        }
        p = try ExpressionParser(source: source, dialect: .firestore)
    }

    mutating func parse() throws(RulesSyntaxError) -> FirestoreSyntax {
        var version = "1"
        if p.current.isIdentifier("rules_version") {
            try p.advance()
            try p.expectSymbol("=", "after rules_version")
            guard case .string(let v) = p.current.kind else {
                throw RulesSyntaxError("expected a version string such as '2'", at: p.current.location)
            }
            guard v == "1" || v == "2" else {
                throw RulesSyntaxError("unsupported rules_version '\(v)' (expected '1' or '2')", at: p.current.location)
            }
            version = v
            try p.advance()
            try skipSemicolon()
        }
        guard p.current.isIdentifier("service") else {
            throw RulesSyntaxError("expected 'service', found \(p.current.display)", at: p.current.location)
        }
        try p.advance()
        let serviceLocation = p.current.location
        var service = try p.expectIdentifier("a service name")
        while p.current.isSymbol(".") {
            try p.advance()
            service += "." + (try p.expectIdentifier("a service name"))
        }
        guard service == self.service else {
            throw RulesSyntaxError(
                "unsupported service '\(service)' (expected \(self.service))", at: serviceLocation)
        }
        try p.expectSymbol("{", "to open the service block")
        var functions: [FirestoreSyntax.Function] = []
        var matches: [FirestoreSyntax.Match] = []
        while !p.current.isSymbol("}") {
            if p.current.isIdentifier("function") {
                functions.append(try parseFunction())
            } else if p.current.isIdentifier("match") {
                matches.append(try parseMatch(version: version))
            } else {
                throw RulesSyntaxError(
                    "expected 'match' or 'function', found \(p.current.display)", at: p.current.location)
            }
        }
        try p.advance()
        guard case .end = p.current.kind else {
            throw RulesSyntaxError("unexpected \(p.current.display) after the service block", at: p.current.location)
        }
        return FirestoreSyntax(version: version, service: service, functions: functions, matches: matches)
    }

    private mutating func skipSemicolon() throws(RulesSyntaxError) {
        if p.current.isSymbol(";") { try p.advance() }
    }

    private mutating func parseFunction() throws(RulesSyntaxError) -> FirestoreSyntax.Function {
        let location = p.current.location
        try p.advance()
        let name = try p.expectIdentifier("a function name")
        try p.expectSymbol("(", "after the function name")
        var parameters: [String] = []
        while !p.current.isSymbol(")") {
            parameters.append(try p.expectIdentifier("a parameter name"))
            if p.current.isSymbol(",") {
                try p.advance()
            } else if !p.current.isSymbol(")") {
                throw RulesSyntaxError(
                    "expected ',' or ')' in parameters, found \(p.current.display)", at: p.current.location)
            }
        }
        try p.advance()
        try p.expectSymbol("{", "to open the function body")
        var lets: [(String, Expression)] = []
        while p.current.isIdentifier("let") {
            try p.advance()
            let variable = try p.expectIdentifier("a variable name after 'let'")
            try p.expectSymbol("=", "after the let variable")
            lets.append((variable, try p.parseExpression()))
            try p.expectSymbol(";", "after the let binding")
        }
        guard p.current.isIdentifier("return") else {
            throw RulesSyntaxError("expected 'return' or 'let', found \(p.current.display)", at: p.current.location)
        }
        try p.advance()
        let body = try p.parseExpression()
        try skipSemicolon()
        try p.expectSymbol("}", "to close the function body")
        return FirestoreSyntax.Function(name: name, parameters: parameters, lets: lets, body: body, location: location)
    }

    private mutating func parseMatch(version: String) throws(RulesSyntaxError) -> FirestoreSyntax.Match {
        let location = p.current.location
        try p.advance()
        guard p.current.isSymbol("/") else {
            throw RulesSyntaxError("expected a path starting with '/' after 'match'", at: p.current.location)
        }
        var pattern: [FirestoreSyntax.PatternSegment] = []
        while true {
            let segmentLocation = p.lexer.location
            if p.lexer.peekScalar == "{" {
                p.lexer.skipScalar()
                let name = p.lexer.scanIdentifier()
                guard !name.isEmpty else {
                    throw RulesSyntaxError("expected a wildcard name after '{'", at: segmentLocation)
                }
                var recursive = false
                if p.lexer.peekScalar == "=" {
                    p.lexer.skipScalar()
                    let starsLocation = p.lexer.location
                    guard p.lexer.peekScalar == "*" && p.lexer.peekSecondScalar == "*" else {
                        throw RulesSyntaxError("expected '**' after '=' in a wildcard", at: starsLocation)
                    }
                    p.lexer.skipScalar()
                    p.lexer.skipScalar()
                    recursive = true
                }
                guard p.lexer.peekScalar == "}" else {
                    throw RulesSyntaxError("expected '}' to close the wildcard", at: p.lexer.location)
                }
                p.lexer.skipScalar()
                if recursive {
                    if pattern.contains(where: { if case .recursive = $0 { true } else { false } }) {
                        throw RulesSyntaxError("only one recursive wildcard is allowed per match", at: segmentLocation)
                    }
                    if version == "1" && p.lexer.peekScalar == "/" {
                        throw RulesSyntaxError(
                            "a recursive wildcard must be the last segment in rules_version '1'", at: segmentLocation)
                    }
                    pattern.append(.recursive(name))
                } else {
                    pattern.append(.single(name))
                }
            } else {
                let segment = p.lexer.scanPathSegment()
                guard !segment.isEmpty else { throw RulesSyntaxError("expected a path segment", at: segmentLocation) }
                pattern.append(.literal(segment))
            }
            guard p.lexer.peekScalar == "/" else { break }
            p.lexer.skipScalar()
        }
        try p.advance()
        try p.expectSymbol("{", "to open the match block")
        var functions: [FirestoreSyntax.Function] = []
        var allows: [FirestoreSyntax.Allow] = []
        var children: [FirestoreSyntax.Match] = []
        while !p.current.isSymbol("}") {
            if p.current.isIdentifier("function") {
                functions.append(try parseFunction())
            } else if p.current.isIdentifier("match") {
                children.append(try parseMatch(version: version))
            } else if p.current.isIdentifier("allow") {
                allows.append(try parseAllow())
            } else {
                throw RulesSyntaxError(
                    "expected 'allow', 'match' or 'function', found \(p.current.display)", at: p.current.location)
            }
        }
        try p.advance()
        return FirestoreSyntax.Match(
            pattern: pattern, functions: functions, allows: allows, children: children, location: location)
    }

    private mutating func parseAllow() throws(RulesSyntaxError) -> FirestoreSyntax.Allow {
        let location = p.current.location
        try p.advance()
        var methods: [String] = []
        repeat {
            if p.current.isSymbol(",") { try p.advance() }
            let methodLocation = p.current.location
            let method = try p.expectIdentifier("a method (read, write, get, list, create, update, delete)")
            guard Self.methods.contains(method) else {
                throw RulesSyntaxError(
                    "unknown method '\(method)' (expected read, write, get, list, create, update or delete)",
                    at: methodLocation)
            }
            methods.append(method)
        } while p.current.isSymbol(",")
        var condition: Expression?
        if p.current.isSymbol(":") {
            try p.advance()
            guard p.current.isIdentifier("if") else {
                throw RulesSyntaxError("expected 'if' after ':', found \(p.current.display)", at: p.current.location)
            }
            try p.advance()
            condition = try p.parseExpression()
        }
        if !p.current.isSymbol("}") {
            try p.expectSymbol(";", "after the allow statement")
        }
        return FirestoreSyntax.Allow(methods: methods, condition: condition, location: location)
    }
}
