package import HearthCore

/// The bytes of documents one read may gather (a query, a `batchGet`, a page of a listing), counted in the stored
/// encoding as the documents are read — so a read over a million documents stops at the bound instead of first
/// holding them all.
package struct ResultBudget {
    /// The most bytes; `Int.max` is unbounded.
    package let limit: Int
    package private(set) var used = 0

    package init(limit: Int) { self.limit = limit }

    /// Whether `document` still fits; counts it when it does.
    package mutating func admits(_ document: StoredDocument) -> Bool {
        let (sum, overflow) = used.addingReportingOverflow(document.fieldsJSON.count)
        guard !overflow, sum <= limit else { return false }
        used = sum
        return true
    }

    /// Counts `document`, or throws `RESOURCE_EXHAUSTED` when the answer would pass the bound.
    package mutating func spend(_ document: StoredDocument) throws(HearthError) {
        guard admits(document) else { throw exceeded }
    }

    /// The error of a read whose answer would pass the bound.
    package var exceeded: HearthError {
        HearthError(
            .resourceExhausted,
            "The answer would hold more than \(limit) bytes of documents (the server's --max-result-bytes); read it in smaller parts: a limit with cursors, or fewer names."
        )
    }
}
