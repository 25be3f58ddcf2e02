import Foundation
import HearthCore
import HearthStore
import HearthStoreConformance
import HearthStoreSQLite
import Testing

/// SQLite's own commit behaviour; what every engine must do is in ``DocumentStoreConformance`` (run below).
@Suite struct CommitTests {
    @Test(arguments: DocumentStoreConformance.checks)
    func conformsToTheDocumentStoreSuite(_ check: DocumentConformanceCheck) async throws {
        try await check.run { body in
            let temporary = try TemporaryStore { $0.indexes = DocumentStoreConformance.indexes }
            try await body(temporary.store)
        }
    }

    @Test func dataSurvivesReopening() async throws {
        let temporary = try TemporaryStore()
        try await temporary.store.commitOrThrow([set("c/a", ["v": .string("kept")])])
        try temporary.reopen()
        #expect(try temporary.store.document(at: path("c/a"))?.fields() == ["v": .string("kept")])
    }

    @Test func theWipeLeavesNoCollections() async throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        try await store.commitOrThrow([set("a/1", [:]), set("a/1/sub/2", [:]), set("b/3", ["x": .null])])
        #expect(try await store.deleteAllDocuments() == 3)
        #expect(try store.collectionIDs(under: .root, after: nil, limit: 10).isEmpty)
    }
}
