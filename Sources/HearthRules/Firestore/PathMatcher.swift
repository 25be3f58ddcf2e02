/// Matches request paths against `match` patterns, binding wildcards.
enum PathMatcher {
    /// One segment of a request path. Lists and collection-group queries name no document, so their paths contain
    /// segments only a wildcard can match, and whose value rules cannot read.
    enum Segment: Sendable, Equatable {
        case id(String)
        /// Some document ID (the documents a list could return).
        case anyID
        /// Any run of segments (the parents of a collection group).
        case anyPath
    }

    /// The wildcard bindings when `pattern` matches all of `path`, or `nil`: ``matchFixed(_:_:)`` for a pattern
    /// without a `{name=**}` segment (one pass, no backtracking), the general search otherwise.
    static func match(
        _ pattern: [FirestoreSyntax.PatternSegment], hasRecursive: Bool, _ path: [Segment], recursiveMatchesEmpty: Bool
    ) -> [(String, RulesValue)]? {
        hasRecursive
            ? match(pattern[...], path[...], recursiveMatchesEmpty: recursiveMatchesEmpty) : matchFixed(pattern, path)
    }

    /// A pattern of literals and `{name}` segments only matches a path of its length, segment by segment. Bindings
    /// come out in the order the general search gives them (innermost first).
    static func matchFixed(_ pattern: [FirestoreSyntax.PatternSegment], _ path: [Segment]) -> [(String, RulesValue)]? {
        guard pattern.count == path.count else { return nil }
        var bindings: [(String, RulesValue)] = []
        for index in stride(from: pattern.count - 1, through: 0, by: -1) {
            switch (pattern[index], path[index]) {
            case (.literal(let text), .id(let id)):
                guard id == text else { return nil }
            case (.single(let name), .id(let id)):
                bindings.append((name, .string(id)))
            case (.single, .anyID):
                break
            default:
                return nil
            }
        }
        return bindings
    }

    /// The wildcard bindings when `pattern` matches all of `path`, or `nil`.
    static func match(
        _ pattern: ArraySlice<FirestoreSyntax.PatternSegment>, _ path: ArraySlice<Segment>, recursiveMatchesEmpty: Bool
    ) -> [(String, RulesValue)]? {
        guard let first = pattern.first else { return path.isEmpty ? [] : nil }
        let rest = pattern.dropFirst()
        switch first {
        case .literal(let text):
            guard let segment = path.first, segment == .id(text) else { return nil }
            return match(rest, path.dropFirst(), recursiveMatchesEmpty: recursiveMatchesEmpty)
        case .single(let name):
            guard let segment = path.first, segment != .anyPath,
                var bindings = match(rest, path.dropFirst(), recursiveMatchesEmpty: recursiveMatchesEmpty)
            else { return nil }
            if case .id(let id) = segment { bindings.append((name, .string(id))) }
            return bindings
        case .recursive(let name):
            let minimum = recursiveMatchesEmpty ? 0 : 1
            guard path.count >= minimum else { return nil }
            for taken in stride(from: path.count, through: minimum, by: -1) {
                let consumed = path.prefix(taken)
                guard var bindings = match(rest, path.dropFirst(taken), recursiveMatchesEmpty: recursiveMatchesEmpty)
                else { continue }
                var ids: [String] = []
                var known = true
                for segment in consumed {
                    if case .id(let id) = segment { ids.append(id) } else { known = false }
                }
                if known { bindings.append((name, .path(ids))) }
                return bindings
            }
            return nil
        }
    }
}
