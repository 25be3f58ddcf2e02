internal import HearthCore

/// A compiled Firestore rules file: parse once, then judge requests from any thread.
public final class FirestoreRuleset: Sendable {
    /// One `match` block flattened to its full pattern, with the functions in its scope.
    struct Rule: Sendable {
        var pattern: [FirestoreSyntax.PatternSegment]
        /// Whether the pattern has a `{name=**}` segment (which needs the backtracking match).
        var hasRecursive: Bool
        var allows: [FirestoreSyntax.Allow]
        var functions: [String: FirestoreSyntax.Function]
    }

    /// The source text the rules were compiled from.
    public let source: String
    /// `rules_version`: "1" or "2".
    public let version: String
    let rules: [Rule]

    /// Compiles rules source; throws the first syntax error with its line and column.
    public convenience init(source: String) throws(RulesSyntaxError) {
        try self.init(source: source, service: "cloud.firestore")
    }

    /// Compiles rules source for `service` (storage rules are this language under `firebase.storage`).
    init(source: String, service: String) throws(RulesSyntaxError) {
        var parser = try FirestoreParser(source: source, service: service)
        let syntax = try parser.parse()
        self.source = source
        version = syntax.version
        var rules: [Rule] = []
        func flatten(
            _ match: FirestoreSyntax.Match, prefix: [FirestoreSyntax.PatternSegment],
            functions: [String: FirestoreSyntax.Function]
        ) {
            let pattern = prefix + match.pattern
            var scope = functions
            for function in match.functions { scope[function.name] = function }
            if !match.allows.isEmpty {
                let hasRecursive = pattern.contains { if case .recursive = $0 { true } else { false } }
                rules.append(
                    Rule(pattern: pattern, hasRecursive: hasRecursive, allows: match.allows, functions: scope))
            }
            for child in match.children { flatten(child, prefix: pattern, functions: scope) }
        }
        var topFunctions: [String: FirestoreSyntax.Function] = [:]
        for function in syntax.functions { topFunctions[function.name] = function }
        for match in syntax.matches { flatten(match, prefix: [], functions: topFunctions) }
        self.rules = rules
    }

    /// Rules that deny every client request (the default outside `--dev` when no rules file is given).
    public static let denyAll = try! FirestoreRuleset(
        source: "rules_version = '2';\nservice cloud.firestore {\n  match /databases/{database}/documents {\n  }\n}\n")

    /// Rules that allow everything (`--dev` without a rules file).
    public static let allowAll = try! FirestoreRuleset(
        source:
            "rules_version = '2';\nservice cloud.firestore {\n  match /databases/{database}/documents {\n    match /{document=**} {\n      allow read, write: if true;\n    }\n  }\n}\n"
    )

    /// Judges one request.
    public func authorize(
        _ request: FirestoreRequest, reader: any RulesDocumentReader = EmptyDocumentReader(),
        limits: RulesLimits = .standard
    ) -> RulesDecision {
        let session = FirestoreSession(reader: reader, limits: limits, isBatch: request.isBatch)
        return authorize(request, session: session)
    }

    /// Judges the writes of one commit together: one read budget, and `getAfter()` sees the reader's post-commit
    /// state. Returns each write's decision, stopping at the first denial.
    public func authorize(
        batch requests: [FirestoreRequest], reader: any RulesDocumentReader, limits: RulesLimits = .standard
    ) -> [RulesDecision] {
        let session = FirestoreSession(reader: reader, limits: limits, isBatch: true)
        var decisions: [RulesDecision] = []
        for request in requests {
            let decision = authorize(request, session: session)
            decisions.append(decision)
            if !decision.isAllowed { break }
        }
        return decisions
    }

    func authorize(_ request: FirestoreRequest, session: FirestoreSession) -> RulesDecision {
        session.beginDocument()
        let fullPath = Self.requestPath(request)
        let requestValue = Self.requestValue(request, fullPath: fullPath)
        let resourceValue: RulesValue
        if request.method == .list, let constraints = request.queryConstraints {
            resourceValue = .object(ResourceObject(path: Self.knownSegments(fullPath), query: constraints))
        } else if let data = request.existingData {
            resourceValue = FirestoreSession.resource(path: Self.knownSegments(fullPath), data: data)
        } else {
            resourceValue = .null
        }
        return judge(
            fullPath, method: request.method, session: session,
            globals: [("request", requestValue), ("resource", resourceValue)])
    }

    /// Tries every rule whose pattern matches `fullPath` and whose allow statements name `method` (or its group),
    /// with `globals` and the path's bindings in scope: the first condition that holds allows. Shared by document
    /// and storage rules.
    func judge(
        _ fullPath: [PathMatcher.Segment], method requestMethod: FirestoreMethod, session: FirestoreSession,
        globals named: [(String, RulesValue)]
    ) -> RulesDecision {
        let method = requestMethod.rawValue
        let group = requestMethod == .get || requestMethod == .list ? "read" : "write"
        var outcomes: [RulesDecision.Outcome] = []
        for rule in rules {
            guard rule.allows.contains(where: { $0.methods.contains(method) || $0.methods.contains(group) }),
                let bindings = PathMatcher.match(
                    rule.pattern, hasRecursive: rule.hasRecursive, fullPath, recursiveMatchesEmpty: version == "2")
            else { continue }
            var globals = Environment(capacity: bindings.count + named.count)
            for (name, value) in named { globals.bind(name, value) }
            for (name, value) in bindings { globals.bind(name, value) }
            session.globals = globals
            session.functions = rule.functions
            for allow in rule.allows where allow.methods.contains(method) || allow.methods.contains(group) {
                guard let condition = allow.condition else {
                    return RulesDecision(isAllowed: true, grantedBy: allow.location, outcomes: outcomes)
                }
                do {
                    let value = try session.evaluate(condition, globals)
                    if case .bool(true) = value {
                        return RulesDecision(isAllowed: true, grantedBy: allow.location, outcomes: outcomes)
                    }
                    outcomes.append(
                        .init(
                            location: allow.location,
                            result: value.typeName == "bool" ? "false" : "not a bool (\(value.typeName))"))
                } catch {
                    outcomes.append(
                        .init(location: allow.location, result: "error at \(error.location): \(error.message)"))
                    if error.isFatal {
                        return RulesDecision(
                            isAllowed: false, failure: session.readFailure, grantedBy: nil, outcomes: outcomes)
                    }
                }
            }
        }
        return RulesDecision(isAllowed: false, grantedBy: nil, outcomes: outcomes)
    }

    static func requestPath(_ request: FirestoreRequest) -> [PathMatcher.Segment] {
        var path: [PathMatcher.Segment] = []
        path.reserveCapacity(request.path.segments.count + 5)
        path.append(.id("databases"))
        path.append(.id(request.database))
        path.append(.id("documents"))
        if request.isCollectionGroup {
            path.append(.anyPath)
        }
        for segment in request.path.segments { path.append(.id(segment)) }
        if request.method == .list { path.append(.anyID) }
        return path
    }

    static func knownSegments(_ path: [PathMatcher.Segment]) -> [String] {
        path.map { segment in
            if case .id(let id) = segment { return id }
            return "*"
        }
    }

    static func requestValue(_ request: FirestoreRequest, fullPath: [PathMatcher.Segment]) -> RulesValue {
        .object(RequestObject(request, path: knownSegments(fullPath)))
    }
}
