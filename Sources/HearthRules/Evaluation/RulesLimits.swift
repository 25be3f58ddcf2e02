/// Bounds on one rules evaluation, so a hostile rules file or request cannot hang the server.
///
/// Defaults follow Firestore's documented limits: 1,000 expressions per request, call depth 20, 10 document reads
/// for a single-document request and 20 for a commit or transaction.
public struct RulesLimits: Sendable, Hashable {
    /// Expressions evaluated per request.
    public var maximumSteps: Int
    /// Nested function calls.
    public var maximumCallDepth: Int
    /// `get()`/`exists()`/`getAfter()`/`existsAfter()` reads per single-document request.
    public var maximumReads: Int
    /// Reads per multi-document request (commit, batch, transaction).
    public var maximumBatchReads: Int
    /// Wall-clock budget per request (all the documents of a commit together), in nanoseconds.
    public var maximumNanoseconds: Int64
    /// Longest string a regular expression is matched against (Firestore uses RE2, which cannot backtrack; this
    /// engine's regular expressions can, so inputs are bounded instead).
    public var maximumRegexInput: Int

    /// Custom limits.
    public init(
        maximumSteps: Int = 1000, maximumCallDepth: Int = 20, maximumReads: Int = 10, maximumBatchReads: Int = 20,
        maximumNanoseconds: Int64 = 100_000_000, maximumRegexInput: Int = 4096
    ) {
        self.maximumSteps = maximumSteps
        self.maximumCallDepth = maximumCallDepth
        self.maximumReads = maximumReads
        self.maximumBatchReads = maximumBatchReads
        self.maximumNanoseconds = maximumNanoseconds
        self.maximumRegexInput = maximumRegexInput
    }

    /// Firestore's limits.
    public static let standard = RulesLimits()
}

/// Why an expression could not be evaluated; an allow whose condition errors does not grant access.
struct EvaluationError: Error, Sendable {
    var message: String
    var location: SourceLocation
    /// A limit was hit: the whole request is denied, no further allow statement is tried.
    var isFatal = false
}
