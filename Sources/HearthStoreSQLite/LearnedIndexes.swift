import Foundation
public import HearthCore
package import HearthSQLite
public import HearthStore

/// Development mode's composite indexes: queries that lack one are answered by a scan (see `QueryPlanner`), and the
/// index is learned — recorded in `learned_indexes`, declared in `composite_indexes` and built in the background —
/// so the next run is index-fast and `hearth indexes` can print what production will need.
public enum LearnedIndexes {
    /// The definitions learned so far, oldest first.
    static func load(from db: SQLiteConnection) throws -> [IndexDefinition] {
        try db.fetchAll("SELECT definition FROM learned_indexes ORDER BY learned, definition").compactMap { row in
            try? IndexDefinition(firestoreJSON: JSONParser.parse(row[0].stringValue ?? ""), at: "learned index")
        }
    }

    /// Records `definition` and declares it, building, inside the writer's transaction (the writer hands it to the
    /// catalog after the commit). Returns the new index's ID.
    static func record(_ definition: IndexDefinition, at time: Timestamp, in db: SQLiteConnection) throws -> Int64 {
        try remember(definition, at: time, in: db)
        try db.execute(
            "INSERT INTO composite_indexes(definition, state) VALUES (\(definition.description), 'building')")
        return db.lastInsertRowID
    }

    /// Records `definition` as learned at `time` (once), without declaring it: what `hearth import` does.
    static func remember(_ definition: IndexDefinition, at time: Timestamp, in db: SQLiteConnection) throws {
        try db.execute(
            """
            INSERT OR IGNORE INTO learned_indexes(definition, learned)
            VALUES (\(definition.description), \(time.microseconds))
            """)
    }

    /// The declared indexes (as last started) and the learned ones, each once, declared first.
    package static func definitions(in db: SQLiteConnection) throws -> [IndexDefinition] {
        var definitions: [IndexDefinition] = []
        for row in try db.fetchAll("SELECT definition FROM composite_indexes ORDER BY id") {
            if let definition = try? IndexDefinition(
                firestoreJSON: JSONParser.parse(row[0].stringValue ?? ""), at: "index")
            {
                definitions.append(definition)
            }
        }
        let hasLearned =
            try db.fetchOne(
                "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'learned_indexes'")?.int(0) ?? 0
        if hasLearned > 0 {
            for definition in try load(from: db) where !definitions.contains(definition) {
                definitions.append(definition)
            }
        }
        return definitions
    }

    /// Every index a data directory's database knows: the declared ones (as last started) and the learned ones,
    /// each once, in a `firestore.indexes.json` document. Opens the database read-only, so a running server may
    /// keep serving.
    public static func indexesJSON(inDirectory directory: String) throws(HearthError) -> String {
        let path = (directory as NSString).appendingPathComponent(SQLiteDocumentStore.fileName)
        guard FileManager.default.fileExists(atPath: path) else {
            throw .notFound("No Hearth database in \(directory) (looked for \(path)).")
        }
        var options = SQLiteConnection.Options()
        options.readOnly = true
        options.create = false
        do {
            let db = try SQLiteConnection(path: path, options: options)
            defer { db.close() }
            return indexesJSON(try definitions(in: db))
        } catch let error as HearthError {
            throw error
        } catch {
            throw .internal("Cannot read the indexes of \(path): \(error)")
        }
    }

    /// `definitions` as a `firestore.indexes.json` document, one index per line.
    public static func indexesJSON(_ definitions: [IndexDefinition]) -> String {
        let list = definitions.map { "    " + $0.description }.joined(separator: ",\n")
        return "{\n  \"indexes\": [\n\(list)\n  ],\n  \"fieldOverrides\": []\n}\n"
    }
}
