import Foundation
public import HearthCore
internal import HearthPostgres
public import HearthStore

/// Named Firestore databases, and development mode's other projects, on PostgreSQL: each one's tables live in a
/// PostgreSQL schema of its own in the same database as the configured project's `(default)` (which keeps
/// `public`), reached by a search path set on every connection, so the engine, its migrations and every statement
/// are unchanged and shared by every node.
///
/// Schema names: a named database of the configured project is `db_` and its ID with `_` for `-` (IDs hold no `_`, so
/// no two share a schema); another project's `(default)` is `prj_` and its ID the same way (IDs of lowercase letters,
/// digits and `-` up to 40 characters; others `prh_` and a hash of the ID), and its named databases that schema, `__`
/// and the database's part. A name past PostgreSQL's 63 bytes ends in a hash of the whole.
public enum PostgresNamedDatabases {
    /// The schema of the named database `id` below `base` (another project's schema; `nil`: the configured project).
    static func schema(of id: String, below base: String? = nil) -> String {
        let name = (base.map { $0 + "__" } ?? "db_") + id.replacingOccurrences(of: "-", with: "_")
        return fitted(name, whole: (base ?? "") + "/" + id)
    }

    /// The schema of project `id`'s `(default)` database, when it is not the configured project.
    static func schema(ofProject id: String) -> String {
        let readable =
            id.utf8.count <= 40
            && id.utf8.allSatisfy {
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                    || $0 == UInt8(ascii: "-")
            }
        return readable ? "prj_" + id.replacingOccurrences(of: "-", with: "_") : "prh_" + hash(id)
    }

    /// `name` when it fits PostgreSQL's 63 bytes, else its first 46 bytes and a hash of `whole`.
    private static func fitted(_ name: String, whole: String) -> String {
        guard name.utf8.count > 63 else { return name }
        return String(name.prefix(46)) + "_" + hash(whole)
    }

    /// FNV-1a of `text`, 16 hexadecimal digits.
    private static func hash(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// The marker ``scoped(_:to:)`` appends (the URL's last parameter).
    private static let marker = "options=-csearch_path%3D"

    /// The schema `conninfo` was scoped to by ``scoped(_:to:)``, and the URL without it; `nil` for the configured
    /// project's own URL.
    private static func scope(of conninfo: String) -> (base: String, schema: String)? {
        guard let range = conninfo.range(of: marker, options: .backwards) else { return nil }
        let schema = String(conninfo[range.upperBound...])
        guard !schema.isEmpty, schema.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else { return nil }
        return (String(conninfo[..<conninfo.index(before: range.lowerBound)]), schema)
    }

    /// `conninfo` with `schema` as every connection's search path.
    private static func scoped(_ conninfo: String, to schema: String) throws(HearthError) -> String {
        guard !conninfo.contains("options=") else {
            throw .invalidArgument(
                "Named databases and other projects on PostgreSQL set the connection's options (its search path); drop options= from the --store URL."
            )
        }
        return conninfo + (conninfo.contains("?") ? "&" : "?") + marker + schema
    }

    /// The schema the named database `id` of the store at `conninfo` (a project's) keeps its tables in.
    private static func schema(of id: String, in conninfo: String) -> String {
        schema(of: id, below: scope(of: conninfo)?.schema)
    }

    /// `conninfo` (a project's `postgres://` URL) with the named database's schema as every connection's search path.
    /// - Throws: `INVALID_ARGUMENT` for a URL that sets `options` itself, which this would override.
    public static func conninfo(_ conninfo: String, database id: String) throws(HearthError) -> String {
        let (base, project) = scope(of: conninfo).map { ($0.base, Optional($0.schema)) } ?? (conninfo, nil)
        return try scoped(base, to: schema(of: id, below: project))
    }

    /// The configured project's `conninfo` scoped to another project's `(default)` database, its schema made when
    /// missing (the engine's migrations then fill it).
    public static func conninfo(_ conninfo: String, project id: String) throws(HearthError) -> String {
        let schema = schema(ofProject: id)
        _ = try run(conninfo, "making the schema of project \(id)") { db in
            try db.query("CREATE SCHEMA IF NOT EXISTS " + schema)
        }
        return try scoped(conninfo, to: schema)
    }

    /// Makes the named database's schema when it is missing (a database's first use); the engine's migrations then
    /// fill it.
    public static func create(_ id: String, conninfo: String) throws(HearthError) {
        _ = try run(conninfo, "making the schema of database \(id)") { db in
            try db.query("CREATE SCHEMA IF NOT EXISTS " + schema(of: id, in: conninfo))
        }
    }

    /// Whether the named database exists (its schema has the engine's tables): made by any node.
    public static func exists(_ id: String, conninfo: String) throws(HearthError) -> Bool {
        try run(conninfo, "looking database \(id) up") { db in
            try db.query(
                "SELECT to_regclass($1) IS NOT NULL", [.text(schema(of: id, in: conninfo) + ".documents")],
                binaryResults: true
            )[0].bool(0) == true
        }
    }

    /// The IDs of the named databases (of the project `conninfo` is scoped to) whose schemas exist, as far as a
    /// schema name tells them (a shortened one's ID cannot be read back and is left out).
    public static func ids(conninfo: String) throws(HearthError) -> [String] {
        let project = scope(of: conninfo)?.schema
        let prefix = project.map { $0 + "__" } ?? "db_"
        return try run(conninfo, "listing the named databases") { db in
            try db.query(
                "SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1) ORDER BY nspname", [.text(prefix)]
            ).rows.compactMap { row -> String? in
                let name = try row.string(0) ?? ""
                let id = String(name.dropFirst(prefix.count)).replacingOccurrences(of: "_", with: "-")
                return schema(of: id, below: project) == name ? id : nil
            }
        }
    }

    /// Which incarnation of the named database `id` PostgreSQL holds now: its schema's OID, which a drop and a
    /// re-creation change; `nil` when it does not exist. A node compares it with the one it opened
    /// (``watchDrops(of:_:)``), so it closes a database another node dropped, and one made again after that.
    public static func incarnation(_ id: String, conninfo: String) throws(HearthError) -> Int64? {
        try run(conninfo, "looking database \(id) up") { db in
            let rows = try db.query(
                "SELECT oid::int8 FROM pg_namespace WHERE nspname = $1", [.text(schema(of: id, in: conninfo))],
                binaryResults: true)
            return rows.count == 1 ? try rows[0].int(0) : nil
        }
    }

    /// Drops the named database's schema with every table in it, then tells every node (they close their engines on
    /// it: ``watchDrops(of:_:)``).
    public static func drop(_ id: String, conninfo: String) throws(HearthError) {
        _ = try run(conninfo, "dropping database \(id)") { db in
            try db.query("DROP SCHEMA IF EXISTS " + schema(of: id, in: conninfo) + " CASCADE")
            // After the drop committed, as rules deploys notify: a node that missed it looks when it reconnects.
            try db.query("NOTIFY " + PostgresFeedWakeUp.databasesChannel)
        }
    }

    /// Calls `handler` whenever a node announces a dropped named database, and whenever `store` (a project's
    /// `(default)`) reconnected to PostgreSQL and so may have missed one, on the listening connection its feed
    /// already holds. `handler` should compare ``incarnation(_:conninfo:)`` with what it opened; cancel the
    /// subscription to stop.
    public static func watchDrops(
        of store: PostgresDocumentStore, _ handler: @escaping @Sendable () -> Void
    ) -> ChangeFeed<Bool>.Subscription {
        store.wakeUp.databasesWoken.subscribe { _ in handler() }
    }

    private static func run<T>(
        _ conninfo: String, _ what: String, _ body: (PostgresConnection) throws -> T
    ) throws(HearthError) -> T {
        do {
            let db = try PostgresConnection(conninfo: conninfo)
            defer { db.close() }
            return try body(db)
        } catch {
            throw hearthError(error, doing: what)
        }
    }
}
