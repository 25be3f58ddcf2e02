import Foundation
import HearthCore

/// The on-disk cache of documents the client has read (SQLite through ``LocalSQLite``), so reads can be answered while the
/// server is unreachable (`isFromCache == true`) or on request (`source: .cache`).
///
final class LocalDocumentCache: Sendable {
    private let sqlite: LocalSQLite
    private let database: DatabaseName

    /// Opens (or creates) the cache file; a cache that cannot be opened leaves the SDK working online only.
    init(url: URL, database: DatabaseName) {
        self.database = database
        sqlite = LocalSQLite(url: url)
        sqlite.execute(
            "CREATE TABLE IF NOT EXISTS documents (path TEXT PRIMARY KEY, collection TEXT NOT NULL, fields TEXT NOT NULL, create_time TEXT, update_time TEXT)"
        )
        sqlite.execute("CREATE INDEX IF NOT EXISTS documents_collection ON documents(collection)")
        sqlite.execute(
            "CREATE TABLE IF NOT EXISTS pending_writes (id INTEGER PRIMARY KEY AUTOINCREMENT, writes TEXT NOT NULL)")
        // Added after the first release of the queue; fails harmlessly when the column is already there.
        sqlite.execute("ALTER TABLE pending_writes ADD COLUMN local_time TEXT", tolerating: "duplicate column")
        // The commit's idempotency key (X-Hearth-Write-Id); NULL for commits queued by a release without it.
        sqlite.execute("ALTER TABLE pending_writes ADD COLUMN write_id TEXT", tolerating: "duplicate column")
    }

    private func run(_ sql: String, _ bindings: [String?], row: ((LocalSQLite.Row) -> Void)? = nil) {
        sqlite.run(sql, bindings, row: row)
    }

    /// Stores a document as the server last returned it.
    func put(_ document: StoredDocument) {
        let fields = String(decoding: Value.encodeFields(document.fields), as: UTF8.self)
        run(
            "INSERT OR REPLACE INTO documents (path, collection, fields, create_time, update_time) VALUES (?, ?, ?, ?, ?)",
            [
                document.path.description, document.path.parent.description, fields, document.createTime?.rfc3339,
                document.updateTime?.rfc3339,
            ])
    }

    /// Forgets a document (deleted, missing, or written and not yet re-read).
    func remove(_ path: ResourcePath) { run("DELETE FROM documents WHERE path = ?", [path.description]) }

    /// A cached document, or `nil`.
    func get(_ path: ResourcePath) -> StoredDocument? {
        var found: StoredDocument?
        run("SELECT path, fields, create_time, update_time FROM documents WHERE path = ?", [path.description]) {
            found = self.document(from: $0)
        }
        return found
    }

    /// Forgets a cached document older than `time`: the server's copy after a commit the client cannot replay
    /// exactly (transforms), while a copy a listener already brought in stays.
    func remove(_ path: ResourcePath, olderThan time: HearthCore.Timestamp) {
        if let updated = get(path)?.updateTime, updated >= time { return }
        remove(path)
    }

    // MARK: Pending writes

    /// Appends a commit's writes (REST JSON) to the durable queue with the time the app made them and a fresh
    /// idempotency key; returns its position.
    /// - Throws: `internal` when SQLite did not store it (a full disk): the write is not queued, nor sent.
    func enqueue(_ writes: String, localTime: HearthCore.Timestamp) throws(FirestoreErrorCode) -> Int64 {
        try sqlite.insert(
            "INSERT INTO pending_writes (writes, local_time, write_id) VALUES (?, ?, ?)",
            bindings: [.text(writes), .text(localTime.rfc3339), .text(UUID().uuidString)])
    }

    /// The queued commits, oldest first.
    func pendingCommits() -> [(id: Int64, writes: String, localTime: HearthCore.Timestamp, writeID: String?)] {
        var rows: [(Int64, String, HearthCore.Timestamp, String?)] = []
        let now = Timestamp(date: Date()).core.truncatedToMicroseconds
        run("SELECT id, writes, local_time, write_id FROM pending_writes ORDER BY id", []) { row in
            guard let text = row.text(1) else { return }
            let time = row.text(2).flatMap { HearthCore.Timestamp(rfc3339: $0) }
            rows.append((row.integer(0), text, time ?? now, row.text(3)))
        }
        return rows
    }

    /// Removes a commit the server acknowledged (or refused).
    func dequeue(_ id: Int64) { run("DELETE FROM pending_writes WHERE id = ?", [String(id)]) }

    /// The queued commits, decoded, oldest first — for applying them locally over cached documents.
    func localCommits() -> [LocalCommit] {
        pendingCommits().map { commit in
            LocalCommit(writes: decodeWrites(commit.writes), localTime: commit.localTime, commitTime: nil)
        }
    }

    /// A queued commit's REST JSON as writes (a write that cannot be decoded is left out).
    func decodeWrites(_ text: String) -> [Write] {
        guard let json = try? JSONParser.parse(text), let items = json.arrayValue else { return [] }
        return items.compactMap { try? Write(firestoreJSON: $0, at: "writes", database: database) }
    }

    /// The cached documents of a query's collection (or collection group), before any filter.
    func candidates(for query: StructuredQuery) -> [ResourcePath: StoredDocument] {
        var candidates: [StoredDocument] = []
        if query.allDescendants {
            let prefix = query.parent.segments.isEmpty ? "" : query.parent.description + "/"
            run(
                "SELECT path, fields, create_time, update_time FROM documents WHERE path LIKE ? ESCAPE '\\'",
                [LocalSQLite.escapeLike(prefix) + "%"]
            ) { if let document = self.document(from: $0) { candidates.append(document) } }
            candidates = candidates.filter { query.contains(path: $0.path) }
        } else {
            run(
                "SELECT path, fields, create_time, update_time FROM documents WHERE collection = ?",
                [query.parent.appending(query.collectionID).description]
            ) { if let document = self.document(from: $0) { candidates.append(document) } }
        }
        return Dictionary(candidates.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// Evaluates a query over the cached documents with the queued writes applied (HearthCore's matcher: filters,
    /// cursors, order and limit); `pending` holds the paths the queued writes touched.
    func query(_ query: StructuredQuery) -> (documents: [StoredDocument], pending: Set<ResourcePath>) {
        LocalView.results(
            of: query, base: candidates(for: query), trusted: false, lookup: get, commits: localCommits())
    }

    /// A cached document with the queued writes applied; `pending` says whether any applied.
    func document(_ path: ResourcePath) -> (document: StoredDocument?, pending: Bool) {
        LocalView.overlay(path, on: get(path), commits: localCommits())
    }

    private func document(from row: LocalSQLite.Row) -> StoredDocument? {
        func text(_ column: Int) -> String? { row.text(column) }
        guard let path = text(0), let fieldsText = text(1), let json = try? JSONParser.parse(fieldsText),
            let fields = try? Value.decodeStoredFields(json)
        else { return nil }
        return StoredDocument(
            path: ResourcePath(segments: path.split(separator: "/").map(String.init)), fields: fields,
            createTime: text(2).flatMap(HearthCore.Timestamp.init(rfc3339:)),
            updateTime: text(3).flatMap(HearthCore.Timestamp.init(rfc3339:)))
    }
}
