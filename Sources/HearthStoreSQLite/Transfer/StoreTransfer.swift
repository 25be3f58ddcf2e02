import Foundation
public import HearthCore
package import HearthSQLite
public import HearthStore
import Synchronization

/// The engine's side of `hearth export` and `hearth import`: everything a database file holds, read in one
/// snapshot, and stored back exactly as read — documents with their times, tree leaves with their priorities,
/// composite index definitions. The file formats are the server's (see `DataExport`); this reads and writes rows.
package enum StoreTransfer {
    /// Opens the database of `directory` read-only and runs `body` in one read transaction, so everything it reads is
    /// one moment of a server that keeps writing meanwhile.
    package static func withSnapshot<T>(
        ofDirectory directory: String, _ body: (SQLiteConnection) throws -> T
    ) throws -> T {
        let path = (directory as NSString).appendingPathComponent(SQLiteDocumentStore.fileName)
        var options = SQLiteConnection.Options()
        options.readOnly = true
        options.create = false
        let db = try SQLiteConnection(path: path, options: options)
        defer { db.close() }
        try db.execute("BEGIN")
        defer { try? db.execute("COMMIT") }
        // A deferred read transaction takes its snapshot at the first read.
        _ = try db.fetchOne("SELECT count(*) FROM sqlite_master")
        return try body(db)
    }

    /// Whether the snapshot's database has the table `name` (a component that never ran has none).
    package static func hasTable(_ name: String, in db: SQLiteConnection) throws -> Bool {
        try db.fetchOne("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = \(name)")?.int(0) ?? 0 > 0
    }

    /// Every document, in path order (collection path, then ID), one at a time.
    package static func forEachDocument(in db: SQLiteConnection, _ body: (StoredDocument) throws -> Void) throws {
        try db.forEachRow(
            """
            SELECT d.collection, d.id, coalesce(b.fields, d.fields), d.create_time, d.update_time
            FROM documents d LEFT JOIN document_bodies b ON b.id = d.body ORDER BY d.collection, d.id
            """
        ) { row in
            let collection = row.value(at: 0).stringValue ?? ""
            let id = row.value(at: 1).stringValue ?? ""
            guard case .blob(let fields) = row.value(at: 2) else { return }
            let path = ResourcePath(segments: collection.split(separator: "/").map(String.init) + [id])
            try body(
                StoredDocument(
                    path: path, fieldsJSON: fields,
                    createTime: Timestamp(microseconds: row.value(at: 3).int64Value ?? 0),
                    updateTime: Timestamp(microseconds: row.value(at: 4).int64Value ?? 0)))
        }
    }

    /// The last key of a tree row that holds its node's priority rather than a leaf.
    package static let priorityKey = TreeKeyCodec.priorityKey

    /// Every tree row in key order: its namespace, the keys of its location (ending in `.priority` for a node's
    /// priority) and its leaf.
    package static func forEachTreeRow(
        in db: SQLiteConnection, _ body: (_ namespace: String, _ segments: [String], TreeLeaf) throws -> Void
    ) throws {
        try db.forEachRow("SELECT key, value FROM tree_nodes ORDER BY key") { row in
            let (namespace, segments) = row.withBlob(at: 0) { bytes -> (String, [String]) in
                let end = bytes.firstIndex(of: 0) ?? bytes.count
                let namespace = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[..<end]), as: UTF8.self)
                return (namespace, TreeKeyCodec.segments(of: bytes, after: min(end + 1, bytes.count)))
            }
            if let leaf = SQLiteTreeRows.leaf(row.value(at: 1)) { try body(namespace, segments, leaf) }
        }
    }

    /// The key-order node of one namespace's rows (`segments` as ``forEachTreeRow(in:_:)`` gives them, in any
    /// order): what `hearth import` writes at the namespace's root.
    package static func treeNode(_ rows: [(segments: [String], leaf: TreeLeaf)]) -> TreeNode? {
        let keyed = rows.map { row -> ([UInt8], [String], TreeLeaf) in
            var key: [UInt8] = []
            for segment in row.segments { TreeKeyCodec.append(segment, to: &key) }
            return (key, row.segments, row.leaf)
        }
        var builder = TreeNodeBuilder()
        for row in keyed.sorted(by: { $0.0.lexicographicallyPrecedes($1.0) }) { builder.add(row.1, row.2) }
        return builder.finish()
    }
}

extension SQLiteDocumentStore {
    /// Stores `documents` exactly as given — fields, create and update times — through the writer, in one
    /// transaction, each over whatever its path holds (`hearth import`). `completion` runs once they are durable,
    /// with how many were stored, or with why none was.
    public func importDocuments(
        _ documents: [DocumentSnapshot], completion: @escaping @Sendable (Result<Int, HearthError>) -> Void
    ) {
        database.submit(.importDocuments(documents, completion))
    }

    /// Records `definitions` as learned indexes (`hearth import`): `hearth indexes` prints them, and development mode
    /// declares and builds them when it next opens the directory.
    public func importIndexDefinitions(_ definitions: [IndexDefinition]) throws(HearthError) {
        let now = Timestamp(microseconds: configuration.clock.microseconds)
        do {
            try database.writeAndWait { db in
                for definition in definitions { try LearnedIndexes.remember(definition, at: now, in: db) }
            }
        } catch {
            throw error as? HearthError ?? .internal("Recording the imported indexes failed: \(error)")
        }
    }
}

extension SQLiteDatabase {
    /// Empties both change logs once an import is stored: a directory no server has served has no listener to
    /// resume, and a million imported documents should not leave a million log rows behind. Sequence numbers keep
    /// counting from where they were.
    package func dropChangeLogs() throws(HearthError) {
        do {
            try writeAndWait { db in
                for log in Self.changeLogs { try log.prune(retention: 0, in: db) }
            }
        } catch {
            throw error as? HearthError ?? .internal("Emptying the change logs failed: \(error)")
        }
    }
}
