/// A recursive-descent parser for rules expressions, shared by both languages.
///
/// Precedence, lowest first: `?:`, `||`, `&&`, comparisons (`==` `!=` `<` `<=` `>` `>=` `in` `is`), `+ -`,
/// `* / %`, unary `! -`, then member access, indexing and calls.
struct ExpressionParser {
    /// Which language's primary expressions apply: a leading `/` is a path in Firestore rules and a regular
    /// expression in Realtime Database rules.
    enum Dialect: Sendable { case firestore, database }

    /// The deepest nesting accepted, so a hostile file cannot exhaust the stack.
    static let maximumDepth = 100

    var lexer: Lexer
    var current: Token
    let dialect: Dialect
    private var depth = 0

    init(source: String, dialect: Dialect) throws(RulesSyntaxError) {
        lexer = Lexer(source)
        current = try lexer.next()
        self.dialect = dialect
    }

    mutating func advance() throws(RulesSyntaxError) {
        current = try lexer.next()
    }

    mutating func expectSymbol(_ symbol: String, _ context: String) throws(RulesSyntaxError) {
        guard current.isSymbol(symbol) else {
            throw RulesSyntaxError("expected '\(symbol)' \(context), found \(current.display)", at: current.location)
        }
        try advance()
    }

    mutating func expectIdentifier(_ context: String) throws(RulesSyntaxError) -> String {
        guard case .identifier(let name) = current.kind else {
            throw RulesSyntaxError("expected \(context), found \(current.display)", at: current.location)
        }
        try advance()
        return name
    }

    mutating func parseExpression() throws(RulesSyntaxError) -> Expression {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else {
            throw RulesSyntaxError("expression nested too deeply", at: current.location)
        }
        let condition = try parseOr()
        guard current.isSymbol("?") else { return condition }
        let location = current.location
        try advance()
        let then = try parseExpression()
        try expectSymbol(":", "in conditional expression")
        let otherwise = try parseExpression()
        return Expression(.conditional(condition, then, otherwise), at: location)
    }

    private mutating func parseOr() throws(RulesSyntaxError) -> Expression {
        var lhs = try parseAnd()
        while current.isSymbol("||") {
            let location = current.location
            try advance()
            lhs = Expression(.binary(.or, lhs, try parseAnd()), at: location)
        }
        return lhs
    }

    private mutating func parseAnd() throws(RulesSyntaxError) -> Expression {
        var lhs = try parseComparison()
        while current.isSymbol("&&") {
            let location = current.location
            try advance()
            lhs = Expression(.binary(.and, lhs, try parseComparison()), at: location)
        }
        return lhs
    }

    private mutating func parseComparison() throws(RulesSyntaxError) -> Expression {
        var lhs = try parseAdditive()
        while true {
            let location = current.location
            if current.isIdentifier("is") {
                try advance()
                let type = try expectIdentifier("a type name after 'is'")
                lhs = Expression(.isType(lhs, type), at: location)
                continue
            }
            let op: Expression.BinaryOperator
            switch current.kind {
            case .symbol("=="), .symbol("==="): op = .equal
            case .symbol("!="), .symbol("!=="): op = .notEqual
            case .symbol("<"): op = .less
            case .symbol("<="): op = .lessOrEqual
            case .symbol(">"): op = .greater
            case .symbol(">="): op = .greaterOrEqual
            case .identifier("in") where dialect == .firestore: op = .in
            default: return lhs
            }
            try advance()
            lhs = Expression(.binary(op, lhs, try parseAdditive()), at: location)
        }
    }

    private mutating func parseAdditive() throws(RulesSyntaxError) -> Expression {
        var lhs = try parseMultiplicative()
        while true {
            let location = current.location
            let op: Expression.BinaryOperator
            if current.isSymbol("+") {
                op = .add
            } else if current.isSymbol("-") {
                op = .subtract
            } else {
                return lhs
            }
            try advance()
            lhs = Expression(.binary(op, lhs, try parseMultiplicative()), at: location)
        }
    }

    private mutating func parseMultiplicative() throws(RulesSyntaxError) -> Expression {
        var lhs = try parseUnary()
        while true {
            let location = current.location
            let op: Expression.BinaryOperator
            if current.isSymbol("*") {
                op = .multiply
            } else if current.isSymbol("/") {
                op = .divide
            } else if current.isSymbol("%") {
                op = .remainder
            } else {
                return lhs
            }
            try advance()
            lhs = Expression(.binary(op, lhs, try parseUnary()), at: location)
        }
    }

    private mutating func parseUnary() throws(RulesSyntaxError) -> Expression {
        let location = current.location
        if current.isSymbol("!") || current.isSymbol("-") {
            let op: Expression.UnaryOperator = current.isSymbol("!") ? .not : .negate
            try advance()
            depth += 1
            defer { depth -= 1 }
            guard depth <= Self.maximumDepth else {
                throw RulesSyntaxError("expression nested too deeply", at: location)
            }
            let operand = try parseUnary()
            if op == .negate, case .integer(let i) = operand.kind { return Expression(.integer(-i), at: location) }
            if op == .negate, case .float(let d) = operand.kind { return Expression(.float(-d), at: location) }
            return Expression(.unary(op, operand), at: location)
        }
        return try parsePostfix(try parsePrimary())
    }

    private mutating func parsePostfix(_ base: Expression) throws(RulesSyntaxError) -> Expression {
        var expression = base
        var links = 0
        while true {
            let location = current.location
            links += 1
            guard links <= Self.maximumDepth * 10 else { throw RulesSyntaxError("expression too long", at: location) }
            if current.isSymbol(".") {
                try advance()
                let name = try expectIdentifier("a field or method name after '.'")
                if current.isSymbol("(") {
                    let arguments = try parseArguments()
                    expression = Expression(.method(expression, name, arguments), at: location)
                } else {
                    expression = Expression(.member(expression, name), at: location)
                }
            } else if current.isSymbol("[") {
                try advance()
                var start: Expression?
                if !current.isSymbol(":") { start = try parseExpression() }
                if current.isSymbol(":") {
                    try advance()
                    var end: Expression?
                    if !current.isSymbol("]") { end = try parseExpression() }
                    try expectSymbol("]", "to close the slice")
                    expression = Expression(.slice(expression, start, end), at: location)
                } else {
                    try expectSymbol("]", "to close the index")
                    guard let start else { throw RulesSyntaxError("expected an index", at: location) }
                    expression = Expression(.index(expression, start), at: location)
                }
            } else {
                return expression
            }
        }
    }

    private mutating func parseArguments() throws(RulesSyntaxError) -> [Expression] {
        try expectSymbol("(", "to start the arguments")
        var arguments: [Expression] = []
        while !current.isSymbol(")") {
            arguments.append(try parseExpression())
            if current.isSymbol(",") {
                try advance()
            } else if !current.isSymbol(")") {
                throw RulesSyntaxError(
                    "expected ',' or ')' in arguments, found \(current.display)", at: current.location)
            }
        }
        try advance()
        return arguments
    }

    private mutating func parsePrimary() throws(RulesSyntaxError) -> Expression {
        let token = current
        let location = token.location
        switch token.kind {
        case .integer(let i):
            try advance()
            return Expression(.integer(i), at: location)
        case .float(let d):
            try advance()
            return Expression(.float(d), at: location)
        case .string(let s):
            try advance()
            return Expression(.string(s), at: location)
        case .identifier(let name):
            try advance()
            switch name {
            case "true": return Expression(.bool(true), at: location)
            case "false": return Expression(.bool(false), at: location)
            case "null": return Expression(.null, at: location)
            default: break
            }
            if current.isSymbol("(") {
                return Expression(.call(name, try parseArguments()), at: location)
            }
            return Expression(.identifier(name), at: location)
        case .symbol("("):
            try advance()
            let inner = try parseExpression()
            try expectSymbol(")", "to close the parenthesis")
            return inner
        case .symbol("["):
            try advance()
            var elements: [Expression] = []
            while !current.isSymbol("]") {
                elements.append(try parseExpression())
                if current.isSymbol(",") {
                    try advance()
                } else if !current.isSymbol("]") {
                    throw RulesSyntaxError(
                        "expected ',' or ']' in list, found \(current.display)", at: current.location)
                }
            }
            try advance()
            return Expression(.list(elements), at: location)
        case .symbol("{"):
            try advance()
            var entries: [(String, Expression)] = []
            while !current.isSymbol("}") {
                let key: String
                switch current.kind {
                case .string(let s): key = s
                case .identifier(let s): key = s
                default: throw RulesSyntaxError("expected a map key, found \(current.display)", at: current.location)
                }
                try advance()
                try expectSymbol(":", "after map key")
                entries.append((key, try parseExpression()))
                if current.isSymbol(",") {
                    try advance()
                } else if !current.isSymbol("}") {
                    throw RulesSyntaxError("expected ',' or '}' in map, found \(current.display)", at: current.location)
                }
            }
            try advance()
            return Expression(.map(entries), at: location)
        case .symbol("/"):
            if dialect == .database {
                let pattern = try lexer.scanRegex(start: location)
                try advance()
                return Expression(.regex(pattern), at: location)
            }
            return try parsePathLiteral(at: location)
        default:
            throw RulesSyntaxError("expected an expression, found \(token.display)", at: location)
        }
    }

    /// Parses `/a/$(expr)/b` after its first `/`, scanning segments raw from the lexer.
    private mutating func parsePathLiteral(at location: SourceLocation) throws(RulesSyntaxError) -> Expression {
        var parts: [Expression.PathPart] = []
        while true {
            if lexer.peekScalar == "$" && lexer.peekSecondScalar == "(" {
                lexer.skipScalar()
                lexer.skipScalar()
                try advance()
                let inner = try parseExpression()
                guard current.isSymbol(")") else {
                    throw RulesSyntaxError("expected ')' to close '$(', found \(current.display)", at: current.location)
                }
                parts.append(.interpolation(inner))
            } else {
                let segmentLocation = lexer.location
                let segment = lexer.scanPathSegment()
                guard !segment.isEmpty else { throw RulesSyntaxError("expected a path segment", at: segmentLocation) }
                parts.append(.literal(segment))
            }
            guard lexer.peekScalar == "/" else { break }
            lexer.skipScalar()
        }
        try advance()
        return Expression(.path(parts), at: location)
    }
}
