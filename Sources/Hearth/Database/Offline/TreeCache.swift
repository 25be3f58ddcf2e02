import Foundation
import HearthCore

/// The tree's local store (SQLite through ``LocalSQLite``): the values of locations the app has read or observed,
/// and the queue of writes not yet acknowledged. On disk with ``Database/isPersistenceEnabled``, so both survive an
/// app restart; in memory otherwise, so writes made offline are still held and sent when the server is back.
///
/// Cached locations never nest: storing a value inside a cached location updates that entry, and storing one
/// above cached locations replaces them.
final class TreeCache: Sendable {
    private let sqlite: LocalSQLite

    /// The cache at `url`, or an in-memory one when `url` is `nil`.
    init(url: URL?) {
        sqlite = LocalSQLite(url: url)
        sqlite.execute("CREATE TABLE IF NOT EXISTS tree_data (path TEXT PRIMARY KEY, json TEXT NOT NULL)")
        sqlite.execute(
            """
            CREATE TABLE IF NOT EXISTS tree_writes (id INTEGER PRIMARY KEY AUTOINCREMENT, write_id TEXT NOT NULL,
            method TEXT NOT NULL, path TEXT NOT NULL, body TEXT NOT NULL, local_millis INTEGER NOT NULL)
            """)
    }

    // MARK: Values

    /// The known value at `path` (`.null` when known to be absent), or `nil` when no cached location holds it.
    func value(at path: [String]) -> JSONValue? {
        guard let (entry, json) = covering(path) else { return nil }
        return TreeLocalView.descend(json, path.dropFirst(entry.count)) ?? .null
    }

    /// Records the whole value at `path`, as the server sent it or acknowledged it.
    func store(_ value: JSONValue, at path: [String]) {
        sqlite.transaction {
            if let (entry, json) = covering(path) {
                let updated = TreeLocalView.set(json, at: entry, path: path, to: value)
                sqlite.run("UPDATE tree_data SET json = ? WHERE path = ?", [updated.jsonString, Self.key(entry)])
                return
            }
            let key = Self.key(path)
            let below = path.isEmpty ? "/" : key + "/"
            sqlite.run(
                "DELETE FROM tree_data WHERE path LIKE ? ESCAPE '\\'", [LocalSQLite.escapeLike(below) + "%"])
            sqlite.run("INSERT OR REPLACE INTO tree_data (path, json) VALUES (?, ?)", [key, value.jsonString])
        }
    }

    /// The cached location at or above `path`, with its value.
    private func covering(_ path: [String]) -> (path: [String], json: JSONValue)? {
        for length in 0...path.count {
            let entry = Array(path.prefix(length))
            var text: String?
            sqlite.run("SELECT json FROM tree_data WHERE path = ?", [Self.key(entry)]) {
                text = $0.text(0)
            }
            if let text, let json = try? JSONParser.parse(text) { return (entry, json) }
        }
        return nil
    }

    /// A path as stored: `/` then the segments, `/`-separated (keys cannot contain `/`).
    private static func key(_ path: [String]) -> String { "/" + path.joined(separator: "/") }

    // MARK: Queued writes

    /// Appends a write to the queue, with a fresh idempotency key; returns it with its position.
    /// - Throws: `internal` when SQLite did not store it (a full disk): the write is not queued, nor sent.
    func enqueue(
        method: String, path: [String], body: JSONValue, localMillis: Int64
    ) throws(FirestoreErrorCode) -> TreeLocalWrite {
        let writeID = UUID().uuidString
        let id = try sqlite.insert(
            "INSERT INTO tree_writes (write_id, method, path, body, local_millis) VALUES (?, ?, ?, ?, ?)",
            bindings: [
                .text(writeID), .text(method), .text(Self.key(path)), .text(body.jsonString), .integer(localMillis),
            ])
        return TreeLocalWrite(
            id: id, writeID: writeID, method: method, path: path, body: body, localMillis: localMillis)
    }

    /// The queued writes, oldest first.
    func queuedWrites() -> [TreeLocalWrite] {
        var writes: [TreeLocalWrite] = []
        sqlite.run("SELECT id, write_id, method, path, body, local_millis FROM tree_writes ORDER BY id", []) { row in
            guard let writeID = row.text(1), let method = row.text(2),
                let path = row.text(3), let text = row.text(4),
                let body = try? JSONParser.parse(text)
            else { return }
            writes.append(
                TreeLocalWrite(
                    id: row.integer(0), writeID: writeID, method: method,
                    path: path.split(separator: "/").map(String.init), body: body,
                    localMillis: row.integer(5)))
        }
        return writes
    }

    /// Removes a write the server acknowledged (or refused).
    func dequeue(_ id: Int64) { sqlite.run("DELETE FROM tree_writes WHERE id = ?", bindings: [.integer(id)]) }
}
