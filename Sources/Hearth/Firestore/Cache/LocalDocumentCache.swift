import CSQLite
import Foundation
import HearthCore

/// The on-disk cache of documents the client has read (SQLite through CSQLite), so reads can be answered while the
/// server is unreachable (`isFromCache == true`) or on request (`source: .cache`).
///
/// `@unchecked Sendable`: the connection handle is only touched inside `lock`.
final class LocalDocumentCache: @unchecked Sendable {
    private let lock = NSLock()
    private var db: OpaquePointer?
    private let database: DatabaseName

    /// Opens (or creates) the cache file; a cache that cannot be opened leaves the SDK working online only.
    init(url: URL, database: DatabaseName) {
        self.database = database
        try? FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        var handle: OpaquePointer?
        if sqlite3_open_v2(url.path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nil)
            == SQLITE_OK
        {
            db = handle
            execute("PRAGMA journal_mode=WAL")
            execute(
                "CREATE TABLE IF NOT EXISTS documents (path TEXT PRIMARY KEY, collection TEXT NOT NULL, fields TEXT NOT NULL, create_time TEXT, update_time TEXT)"
            )
            execute("CREATE INDEX IF NOT EXISTS documents_collection ON documents(collection)")
        } else {
            sqlite3_close(handle)
        }
    }

    deinit { sqlite3_close(db) }

    private func execute(_ sql: String) { sqlite3_exec(db, sql, nil, nil, nil) }

    /// Runs one statement with text bindings, calling `row` for each result row.
    private func run(_ sql: String, _ bindings: [String?], row: ((OpaquePointer) -> Void)? = nil) {
        lock.lock()
        defer { lock.unlock() }
        guard let db else { return }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else { return }
        defer { sqlite3_finalize(statement) }
        for (index, value) in bindings.enumerated() {
            if let value {
                sqlite3_bind_text(statement, Int32(index + 1), value, -1, hearth_sqlite_transient())
            } else {
                sqlite3_bind_null(statement, Int32(index + 1))
            }
        }
        while sqlite3_step(statement) == SQLITE_ROW { row?(statement) }
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

    /// Evaluates a query over the cached documents with HearthCore's matcher: filters, cursors, order and limit.
    func query(_ query: StructuredQuery) -> [StoredDocument] {
        var candidates: [StoredDocument] = []
        if query.allDescendants {
            let prefix = query.parent.segments.isEmpty ? "" : query.parent.description + "/"
            run(
                "SELECT path, fields, create_time, update_time FROM documents WHERE path LIKE ? ESCAPE '\\'",
                [
                    Self.escapeLike(prefix) + "%"
                ]
            ) { if let document = self.document(from: $0) { candidates.append(document) } }
            candidates = candidates.filter { $0.path.parent.lastSegment == query.collectionID }
        } else {
            run(
                "SELECT path, fields, create_time, update_time FROM documents WHERE collection = ?",
                [query.parent.appending(query.collectionID).description]
            ) { if let document = self.document(from: $0) { candidates.append(document) } }
        }
        let normalized = query.normalized()
        let order = normalized.orderBy
        var results = candidates.filter { QueryMatcher.matches(path: $0.path, fields: $0.fields, query: normalized) }
        results.sort { QueryMatcher.compare(($0.path, $0.fields), ($1.path, $1.fields), orderBy: order) < 0 }
        if let limit = query.limit { results = Array(results.prefix(limit)) }
        return results
    }

    private static func escapeLike(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
    }

    private func document(from statement: OpaquePointer) -> StoredDocument? {
        func text(_ column: Int32) -> String? {
            guard let pointer = sqlite3_column_text(statement, column) else { return nil }
            return String(cString: pointer)
        }
        guard let path = text(0), let fieldsText = text(1), let json = try? JSONParser.parse(fieldsText),
            let fields = try? Value.decodeFields(json, at: "fields")
        else { return nil }
        return StoredDocument(
            path: ResourcePath(segments: path.split(separator: "/").map(String.init)), fields: fields,
            createTime: text(2).flatMap(HearthCore.Timestamp.init(rfc3339:)),
            updateTime: text(3).flatMap(HearthCore.Timestamp.init(rfc3339:)))
    }
}
