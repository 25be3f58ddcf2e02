import Foundation
import HearthCore
import HearthStore
import HearthStoreSQLite
import Testing

/// Write idempotency keys: recorded with the answer in the commit's transaction, refused while recorded, pruned by
/// count.
@Suite("Write receipts")
struct WriteReceiptTests {
    private let database = DatabaseName(project: "test")

    private func increment(_ name: String) throws -> Write {
        let json = try JSONParser.parse(
            #"{"transform":{"document":"projects/test/databases/(default)/documents/\#(name)","fieldTransforms":[{"fieldPath":"n","increment":{"integerValue":"1"}}]}}"#
        )
        return try Write(firestoreJSON: json, at: "writes[0]", database: database)
    }

    private func commit(
        _ store: SQLiteDocumentStore, _ writes: [Write], key: String
    ) async -> Result<
        CommitResult, HearthError
    > {
        let receipt = WriteReceipt<CommitResult>(id: key) { Array($0.commitTime.rfc3339.utf8) }
        return await withCheckedContinuation { continuation in
            store.commit(writes, in: database, transaction: nil, judge: nil, receipt: receipt) {
                continuation.resume(returning: $0)
            }
        }
    }

    @Test func aKeyIsAppliedOnceAndAnswersWithWhatItRecorded() async throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        let first = try await commit(store, [try increment("c/d")], key: "k").get()
        #expect(try store.recordedAnswer(forWriteID: "k") == Array(first.commitTime.rfc3339.utf8))
        let again = await commit(store, [try increment("c/d")], key: "k")
        #expect(throws: HearthError.self) { try again.get() }
        #expect(try store.document(at: path("c/d"))?.fields()["n"] == .integer(1), "the second commit applied nothing")
        #expect(try store.recordedAnswer(forWriteID: "other") == nil)
    }

    @Test func receiptsBeyondTheRetentionArePruned() async throws {
        let temporary = try TemporaryStore { $0.writeReceiptRetention = 10 }
        let store = temporary.store
        for index in 0..<25 { _ = try await commit(store, [try increment("c/n")], key: "key-\(index)").get() }
        #expect(try store.recordedAnswer(forWriteID: "key-0") == nil)
        #expect(try store.recordedAnswer(forWriteID: "key-24") != nil)
        #expect(try store.recordedAnswer(forWriteID: "key-15") != nil)
        #expect(try store.document(at: path("c/n"))?.fields()["n"] == .integer(25))
    }
}
