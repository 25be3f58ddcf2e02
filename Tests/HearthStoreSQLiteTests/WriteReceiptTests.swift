import Foundation
import HearthCore
import HearthStore
import HearthStoreConformance
import HearthStoreSQLite
import Testing

/// Write idempotency keys pruned by count (SQLite's settings); applied once per key is in the conformance suite.
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
