public import HearthCore
public import HearthStore

extension DocumentCommitter {
    /// Commits and waits for the outcome.
    public func commit(
        _ writes: [Write], transaction: TransactionID? = nil, judge: CommitJudge? = nil,
        receipt: WriteReceipt<CommitResult>? = nil
    ) async -> Result<CommitResult, HearthError> {
        await withCheckedContinuation { continuation in
            commit(
                writes, in: DatabaseName(project: "test"), transaction: transaction, judge: judge, receipt: receipt
            ) { continuation.resume(returning: $0) }
        }
    }

    /// Commits and returns the result, failing the test on error.
    @discardableResult
    public func commitOrThrow(_ writes: [Write], transaction: TransactionID? = nil) async throws -> CommitResult {
        try await commit(writes, transaction: transaction).get()
    }
}

extension DocumentStoreAdministration {
    /// Wipes every document and waits for the count.
    public func deleteAllDocuments() async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            deleteAllDocuments { continuation.resume(with: $0) }
        }
    }
}

/// A path from its slash-separated text.
public func path(_ text: String) -> ResourcePath {
    ResourcePath(segments: text.split(separator: "/").map(String.init))
}

/// A write replacing the document at `text` with `fields`.
public func set(_ text: String, _ fields: [String: Value]) -> Write {
    Write(path: path(text), operation: .update(fields: fields, mask: nil))
}
