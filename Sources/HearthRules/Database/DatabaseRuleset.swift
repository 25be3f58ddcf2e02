public import HearthCore

/// A compiled Realtime Database rules file (`{"rules": {…}}`), judging tree reads and writes with Firebase's
/// cascading semantics: a `.read` or `.write` that grants at some level grants everything below it, and deeper
/// rules cannot take it back; `.validate` does not cascade and must hold at every written level.
public final class DatabaseRuleset: Sendable {
    /// The source text.
    public let source: String
    let root: DatabaseRuleNode

    /// Compiles rules source; throws the first syntax error with its line and column.
    public init(source: String) throws(RulesSyntaxError) {
        var parser = try DatabaseRulesParser(source: source)
        root = try parser.parse()
        self.source = source
    }

    /// Rules that deny every client (the default outside `--dev`).
    public static let denyAll = try! DatabaseRuleset(source: #"{"rules": {".read": false, ".write": false}}"#)
    /// Rules that allow everything (`--dev` without rules).
    public static let allowAll = try! DatabaseRuleset(source: #"{"rules": {".read": true, ".write": true}}"#)

    /// The `.indexOn` keys declared at `path`.
    public func indexOn(path: [String]) -> [String] {
        var node = root
        for key in path {
            guard let next = node.child(key) else { return [] }
            node = next.node
        }
        return node.indexOn
    }

    /// Judges a read of `path`: allowed when a `.read` at the root, at `path` or between grants it. `query` holds the
    /// read's query parameters as rules see them (`["orderByChild": "owner", "equalTo": "ann"]`; see
    /// `DatabaseEvaluator.queryDefaults` for the names).
    public func authorizeRead(
        path: [String], auth: AuthContext?, data: any TreeDataReader, now: Int64, query: [String: JSONValue] = [:],
        limits: RulesLimits = .standard
    ) -> RulesDecision {
        let evaluator = DatabaseEvaluator(
            auth: auth, before: data, after: data, now: Double(now), query: query, limits: limits)
        return cascade(path: path, evaluator: evaluator, isWrite: false)
    }

    /// Judges a write of `path` (`before` is the tree now, `after` the tree as the write would leave it; for a
    /// multi-path update judge each path with the same `after`): some `.write` from the root to `path` must grant,
    /// and every `.validate` on the ancestors and on each non-null written node must hold.
    public func authorizeWrite(
        path: [String], auth: AuthContext?, before: any TreeDataReader, after: any TreeDataReader, now: Int64,
        limits: RulesLimits = .standard
    ) -> RulesDecision {
        let evaluator = DatabaseEvaluator(auth: auth, before: before, after: after, now: Double(now), limits: limits)
        var decision = cascade(path: path, evaluator: evaluator, isWrite: true)
        guard decision.isAllowed else { return decision }
        // Ancestors' validations see the merged new data.
        var node = root
        var bindings: [(String, String)] = []
        for depth in 0...path.count {
            let prefix = Array(path.prefix(depth))
            if depth < path.count, let rule = node.validate, after.value(at: prefix) != nil {
                if let failure = check(rule, prefix, bindings, evaluator) { return deny(decision, failure) }
            }
            if depth == path.count {
                if let failure = validateTree(node, path: prefix, bindings: bindings, evaluator: evaluator) {
                    return deny(decision, failure)
                }
                break
            }
            guard let next = node.child(path[depth]) else { break }
            if let binding = next.binding { bindings.append(binding) }
            node = next.node
        }
        decision.outcomes = []
        return decision
    }

    private func deny(_ decision: RulesDecision, _ failure: RulesDecision.Outcome) -> RulesDecision {
        RulesDecision(isAllowed: false, grantedBy: nil, outcomes: [failure])
    }

    private func check(
        _ rule: DatabaseRuleNode.Rule, _ path: [String], _ bindings: [(String, String)], _ evaluator: DatabaseEvaluator
    ) -> RulesDecision.Outcome? {
        do {
            if try evaluator.evaluate(rule, path: path, bindings: bindings, isWrite: true) { return nil }
            return .init(location: rule.location, result: ".validate false at /\(path.joined(separator: "/"))")
        } catch {
            return .init(location: rule.location, result: ".validate error at \(error.location): \(error.message)")
        }
    }

    /// Validates every non-null node of the written value at `path` against the rules below `node`.
    private func validateTree(
        _ node: DatabaseRuleNode, path: [String], bindings: [(String, String)], evaluator: DatabaseEvaluator
    ) -> RulesDecision.Outcome? {
        guard let value = evaluator.after.value(at: path) else { return nil }
        if let rule = node.validate, let failure = check(rule, path, bindings, evaluator) { return failure }
        guard case .object(let members) = value else { return nil }
        for key in members.keys.sorted() {
            guard let next = node.child(key) else { continue }
            var childBindings = bindings
            if let binding = next.binding { childBindings.append(binding) }
            if let failure = validateTree(next.node, path: path + [key], bindings: childBindings, evaluator: evaluator)
            {
                return failure
            }
        }
        return nil
    }

    private func cascade(path: [String], evaluator: DatabaseEvaluator, isWrite: Bool) -> RulesDecision {
        var node = root
        var bindings: [(String, String)] = []
        var outcomes: [RulesDecision.Outcome] = []
        for depth in 0...path.count {
            let prefix = Array(path.prefix(depth))
            if let rule = isWrite ? node.write : node.read {
                do {
                    if try evaluator.evaluate(rule, path: prefix, bindings: bindings, isWrite: isWrite) {
                        return RulesDecision(isAllowed: true, grantedBy: rule.location, outcomes: outcomes)
                    }
                    outcomes.append(.init(location: rule.location, result: "false"))
                } catch {
                    outcomes.append(
                        .init(location: rule.location, result: "error at \(error.location): \(error.message)"))
                    if error.isFatal { break }
                }
            }
            guard depth < path.count, let next = node.child(path[depth]) else { break }
            if let binding = next.binding { bindings.append(binding) }
            node = next.node
        }
        return RulesDecision(isAllowed: false, grantedBy: nil, outcomes: outcomes)
    }
}
