/// Regular expressions for `matches`, `split` and `replace`.
///
/// Firestore uses RE2; Swift's `Regex` accepts the same common syntax but can backtrack, so subject strings are
/// bounded by ``RulesLimits/maximumRegexInput``.
enum RulesRegex {
    static func compile(_ pattern: String, _ location: SourceLocation) throws(EvaluationError) -> Regex<AnyRegexOutput>
    {
        do {
            return try Regex(pattern)
        } catch {
            throw EvaluationError(message: "invalid regular expression '\(pattern)'", location: location)
        }
    }

    static func check(_ subject: String, _ limit: Int, _ location: SourceLocation) throws(EvaluationError) {
        guard subject.utf8.count <= limit else {
            throw EvaluationError(message: "string too long for a regular expression", location: location)
        }
    }

    static func fullMatch(
        _ subject: String, _ pattern: String, _ location: SourceLocation, _ limit: Int
    )
        throws(EvaluationError) -> Bool
    {
        try check(subject, limit, location)
        let regex = try compile(pattern, location)
        do {
            return try regex.wholeMatch(in: subject) != nil
        } catch {
            throw EvaluationError(message: "regular expression failed", location: location)
        }
    }

    static func split(
        _ subject: String, _ pattern: String, _ location: SourceLocation, _ limit: Int
    )
        throws(EvaluationError) -> [String]
    {
        try check(subject, limit, location)
        let regex = try compile(pattern, location)
        return subject.split(separator: regex, omittingEmptySubsequences: false).map(String.init)
    }

    static func replace(
        _ subject: String, _ pattern: String, _ replacement: String, _ location: SourceLocation, _ limit: Int
    ) throws(EvaluationError) -> String {
        try check(subject, limit, location)
        let regex = try compile(pattern, location)
        return subject.replacing(regex, with: replacement)
    }
}
