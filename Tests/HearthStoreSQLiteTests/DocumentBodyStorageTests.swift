import Foundation
import HearthCore
import HearthSQLite
import HearthStore
import HearthStoreConformance
import Testing

@testable import HearthStoreSQLite

/// Fields that would overflow their row of the `documents` B-tree are kept in `document_bodies`, so key comparisons
/// never read a large document; every read path sees the same fields, and no body outlives its row.
@Suite struct DocumentBodyStorageTests {
    private func bodies(in directory: String) throws -> Int64 {
        var options = SQLiteConnection.Options()
        options.readOnly = true
        options.create = false
        let db = try SQLiteConnection(
            path: (directory as NSString).appendingPathComponent(SQLiteDocumentStore.fileName), options: options)
        return try db.fetchAll("SELECT count(*) FROM document_bodies")[0].int64(0) ?? -1
    }

    private let large: [String: Value] = ["pad": .string(String(repeating: "x", count: 200_000)), "n": .integer(1)]

    @Test func largeFieldsLiveBesideTheirRowAndFollowIt() async throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        try await store.commitOrThrow([set("c/big", large), set("c/small", ["n": .integer(2)])])
        #expect(try bodies(in: temporary.directory) == 1)
        #expect(try store.document(at: path("c/big"))?.fields() == large)
        let both = try store.documents(at: [path("c/big"), path("c/small")], transaction: nil)
        #expect(try both[0]?.fields() == large)
        #expect(try both[1]?.fields() == ["n": .integer(2)])
        var query = StructuredQuery(parent: ResourcePath(segments: []), collectionID: "c")
        query.orderBy = [QueryOrder(field: FieldPath(segments: ["n"]))]
        let results = try store.runQuery(query, transaction: nil)
        #expect(try results.documents.map { try $0.fields() } == [large, ["n": .integer(2)]])

        // Large to small: the body goes; small to large and large to larger: one body each time.
        try await store.commitOrThrow([set("c/big", ["n": .integer(3)])])
        #expect(try bodies(in: temporary.directory) == 0)
        try await store.commitOrThrow([set("c/big", large)])
        var larger = large
        larger["more"] = .string(String(repeating: "y", count: 1000))
        try await store.commitOrThrow([set("c/big", larger)])
        #expect(try bodies(in: temporary.directory) == 1)
        #expect(try store.document(at: path("c/big"))?.fields() == larger)
        try await store.commitOrThrow([Write(path: path("c/big"), operation: .delete)])
        #expect(try bodies(in: temporary.directory) == 0)
        #expect(try store.document(at: path("c/big")) == nil)

        // A wipe leaves no body behind, and a reopened store reads what it wrote.
        try await store.commitOrThrow([set("c/again", large)])
        try temporary.reopen()
        #expect(try temporary.store.document(at: path("c/again"))?.fields() == large)
        let wiped = temporary.store
        _ = try await withCheckedThrowingContinuation { continuation in
            wiped.deleteAllDocuments { continuation.resume(with: $0) }
        }
        #expect(try bodies(in: temporary.directory) == 0)
    }

    /// A database written before migration 7 keeps its documents, and its large rows move beside their rows.
    @Test func rowsWrittenBeforeTheSplitMove() async throws {
        let directory =
            FileManager.default.temporaryDirectory.appendingPathComponent("hearth-bodies-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        do {
            let db = try SQLiteConnection(
                path: (directory as NSString).appendingPathComponent(SQLiteDocumentStore.fileName))
            try SQLiteMigrator.migrate(db, migrations: Array(Schema.migrations.prefix { $0.version <= 6 }))
            for (id, fields) in [("big", large), ("small", ["n": .integer(2)] as [String: Value])] {
                let segments = ["c", id]
                try db.execute(
                    """
                    INSERT INTO documents(collection, id, collection_id, name_key, fields, create_time, update_time)
                    VALUES ('c', \(id), 'c', \(IndexKey.encode(segments: segments)), \(Value.encodeFields(fields)), 1, 1)
                    """)
            }
        }
        let store = try SQLiteDocumentStore(configuration: .init(directory: directory))
        defer { store.close() }
        #expect(try store.document(at: path("c/big"))?.fields() == large)
        #expect(try store.document(at: path("c/small"))?.fields() == ["n": .integer(2)])
        #expect(try bodies(in: directory) == 1)
    }
}
