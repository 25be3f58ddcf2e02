import HearthCore
import HearthSQLite
import HearthStore
import Synchronization

/// The declared composite indexes of a database: loaded from `composite_indexes`, reconciled with the
/// configured definitions at start, and consulted by the writer (to maintain entries) and the planner.
final class IndexCatalog: Sendable {
    struct Entry: Sendable {
        var id: Int64
        var definition: IndexDefinition
        var ready: Bool
        /// While building: documents indexed so far, and how many the build found when it started.
        var completedDocuments: Int64 = 0
        var estimatedDocuments: Int64? = nil
    }

    /// What one step of a build did.
    struct BuildStep: Sendable {
        /// The last `name_key` done, or `nil` when the build is complete.
        var next: [UInt8]?
        /// The documents this step indexed.
        var indexed: Int
        /// The first step's count of the documents to index; `nil` on later steps.
        var estimated: Int64?
    }

    private let entries = Mutex<[Entry]>([])
    /// Development mode's learner: handed each composite index a query needed and did not find, once.
    private let learning = Mutex<(learn: (@Sendable (IndexDefinition) -> Void)?, asked: Set<IndexDefinition>)>(
        (nil, []))

    /// Indexes refused queries needed (outside development mode), most recent last, at most ``missingLimit``.
    private let missing = Mutex<[IndexDefinition]>([])
    static let missingLimit = 100

    /// Every index, in declaration order.
    var all: [Entry] { entries.withLock { $0 } }

    /// Whether queries without their composite index are answered by a scan (development mode).
    var learnsIndexes: Bool { learning.withLock { $0.learn != nil } }

    /// Turns development mode's learning on: `learn` gets each index queries need that the catalog lacks.
    func startLearning(_ learn: @escaping @Sendable (IndexDefinition) -> Void) {
        learning.withLock { $0.learn = learn }
    }

    /// A query needed `definition`: the learner hears of it the first time, unless the index exists (building).
    func needed(_ definition: IndexDefinition) {
        guard !entries.withLock({ $0.contains { $0.definition == definition } }) else { return }
        let learn = learning.withLock { state in state.asked.insert(definition).inserted ? state.learn : nil }
        learn?(definition)
    }

    /// A query was refused for want of `definition` (outside development mode): kept for the console to show.
    func refused(needing definition: IndexDefinition) {
        missing.withLock { missing in
            missing.removeAll { $0 == definition }
            missing.append(definition)
            if missing.count > Self.missingLimit { missing.removeFirst(missing.count - Self.missingLimit) }
        }
    }

    /// The indexes refused queries needed that are still not declared.
    var missingDefinitions: [IndexDefinition] {
        let declared = Set(all.map(\.definition))
        return missing.withLock { $0.filter { !declared.contains($0) } }
    }

    /// Adds a learned index, building (its entries are maintained from now on; a build fills in the rest).
    func add(_ entry: Entry) {
        entries.withLock { entries in
            if !entries.contains(where: { $0.definition == entry.definition }) { entries.append(entry) }
        }
    }

    /// The indexes covering documents of a collection ID.
    func indexes(forCollectionID id: String) -> [Entry] {
        entries.withLock { $0.filter { $0.definition.collectionID == id } }
    }

    /// Takes in a build step after its commit: the progress it made, and readiness when it was the last.
    func record(_ step: BuildStep, of id: Int64) {
        entries.withLock { entries in
            guard let index = entries.firstIndex(where: { $0.id == id }) else { return }
            if let estimated = step.estimated {
                entries[index].completedDocuments = 0
                entries[index].estimatedDocuments = estimated
            }
            entries[index].completedDocuments += Int64(step.indexed)
            if step.next == nil { entries[index].ready = true }
        }
    }

    /// Makes the stored catalog match `definitions`: new ones are added as building, dropped ones are deleted
    /// with their entries. Returns the IDs that need a build.
    func reconcile(with definitions: [IndexDefinition], in db: SQLiteConnection) throws -> [Int64] {
        try db.transaction(.immediate) {
            var stored: [Entry] = []
            for row in try db.fetchAll("SELECT id, definition, state FROM composite_indexes ORDER BY id") {
                let id = row[0].int64Value ?? 0
                let text = row[1].stringValue ?? ""
                let parsed = try? IndexDefinition(firestoreJSON: JSONParser.parse(text), at: "stored index")
                if let parsed, definitions.contains(parsed) {
                    stored.append(Entry(id: id, definition: parsed, ready: row[2].stringValue == "ready"))
                } else {
                    try db.execute("DELETE FROM composite_entries WHERE index_id = \(id)")
                    try db.execute("DELETE FROM composite_indexes WHERE id = \(id)")
                }
            }
            var toBuild = stored.filter { !$0.ready }.map(\.id)
            for definition in definitions where !stored.contains(where: { $0.definition == definition }) {
                try db.execute(
                    "INSERT INTO composite_indexes(definition, state) VALUES (\(definition.description), 'building')")
                let entry = Entry(id: db.lastInsertRowID, definition: definition, ready: false)
                stored.append(entry)
                toBuild.append(entry.id)
            }
            entries.withLock { $0 = stored }
            return toBuild
        }
    }

    /// Brings one document's composite entries from its old to its new fields.
    func updateEntries(path: ResourcePath, old: [String: Value]?, new: [String: Value]?, in db: SQLiteConnection) throws
    {
        let indexes = self.indexes(forCollectionID: path.parent.lastSegment)
        guard !indexes.isEmpty, path.isDocument else { return }
        for index in indexes {
            let nameKey = index.definition.nameKey(of: path)
            let scope = index.definition.scope(of: path)
            let oldKeys = Set(old.map { index.definition.keys(for: $0) } ?? [])
            let newKeys = Set(new.map { index.definition.keys(for: $0) } ?? [])
            for key in oldKeys.subtracting(newKeys) {
                try db.execute(
                    """
                    DELETE FROM composite_entries WHERE index_id = \(index.id) AND scope = \(scope)
                    AND key = \(key) AND name_key = \(nameKey)
                    """)
            }
            for key in newKeys.subtracting(oldKeys) {
                try db.execute(
                    """
                    INSERT OR REPLACE INTO composite_entries(index_id, scope, key, name_key, path)
                    VALUES (\(index.id), \(scope), \(key), \(nameKey), \(path.description))
                    """)
            }
        }
    }

    /// Indexes up to `limit` documents of the index's collection ID after `cursor` (a `name_key`), inside the
    /// writer's transaction so the build interleaves with commits without missing or doubling an entry.
    /// The first step (an empty cursor) also counts the documents to index, for the build's progress.
    func buildStep(indexID: Int64, after cursor: [UInt8], limit: Int, in db: SQLiteConnection) throws -> BuildStep {
        guard let index = all.first(where: { $0.id == indexID }) else { return BuildStep(next: nil, indexed: 0) }
        var estimated: Int64?
        if cursor.isEmpty {
            let counted = try db.fetchAll(
                "SELECT count(*) FROM documents WHERE collection_id = \(index.definition.collectionID)")
            estimated = counted.first?[0].int64Value ?? 0
        }
        let rows = try db.fetchAll(
            """
            SELECT d.collection, d.id, coalesce(b.fields, d.fields), d.name_key
            FROM documents d LEFT JOIN document_bodies b ON b.id = d.body
            WHERE d.collection_id = \(index.definition.collectionID) AND d.name_key > \(cursor)
            ORDER BY d.name_key LIMIT \(limit)
            """)
        for row in rows {
            let path = ResourcePath(
                segments: ((row[0].stringValue ?? "") + "/" + (row[1].stringValue ?? "")).split(separator: "/").map(
                    String.init))
            let fields = try Value.decodeStoredFields(try JSONParser.parse(row[2].blobValue ?? []))
            let scope = index.definition.scope(of: path)
            for key in Set(index.definition.keys(for: fields)) {
                try db.execute(
                    """
                    INSERT OR REPLACE INTO composite_entries(index_id, scope, key, name_key, path)
                    VALUES (\(index.id), \(scope), \(key), \(index.definition.nameKey(of: path)), \(path.description))
                    """)
            }
        }
        if rows.count < limit {
            // The in-memory state flips after the commit (see CommitWriter), so it never runs ahead of the disk.
            try db.execute("UPDATE composite_indexes SET state = 'ready' WHERE id = \(indexID)")
            return BuildStep(next: nil, indexed: rows.count, estimated: estimated)
        }
        return BuildStep(next: rows.last?[3].blobValue, indexed: rows.count, estimated: estimated)
    }
}
