package import HearthAuth
internal import HearthPostgres

/// The keys that sign ID tokens, in the PostgreSQL database every node shares (`auth_signing_keys`): a token any
/// node signed verifies on every node, and a rotation on one reaches the others at their next re-read.
package final class PostgresSigningKeys: SigningKeyStorage {
    private let store: PostgresDocumentStore

    /// The keys in the database of `store` (migrated when it opened), which its owner closes.
    package init(store: PostgresDocumentStore) {
        self.store = store
    }

    package func keys() throws(AuthError) -> [StoredSigningKey] {
        do {
            return try store.readers.withConnection(idempotent: true) { db in try Self.read(db) }
        } catch {
            throw .internal(
                "cannot read the signing keys: \(hearthError(error, doing: "reading the signing keys").message)")
        }
    }

    /// Runs `change` under a transaction-scoped advisory lock, so two nodes starting at once make one first key and
    /// two rotations never interleave.
    package func update(
        _ change: ([StoredSigningKey]) throws(AuthError) -> [StoredSigningKey]?
    ) throws(AuthError) -> [StoredSigningKey] {
        do {
            return try store.writer.withTransaction("BEGIN") { db in
                try db.query("SELECT pg_advisory_xact_lock($1)", [.int(Self.lockKey)])
                let before = try Self.read(db)
                guard let after = try change(before) else { return before }
                let kept = Set(after.map(\.id))
                for key in before where !kept.contains(key.id) {
                    try db.query("DELETE FROM auth_signing_keys WHERE kid = $1", [.text(key.id)])
                }
                for key in after {
                    try db.query(
                        """
                        INSERT INTO auth_signing_keys(kid, pem, created_at, retired_at) VALUES ($1, $2, $3, $4)
                        ON CONFLICT (kid) DO UPDATE SET retired_at = excluded.retired_at
                        """,
                        [.text(key.id), .text(key.pem), .int(key.createdAt), key.retiredAt.map { .int($0) } ?? .null])
                }
                return after
            }
        } catch let error as AuthError {
            throw error
        } catch {
            throw .internal(
                "cannot change the signing keys: \(hearthError(error, doing: "writing the signing keys").message)")
        }
    }

    /// The advisory lock key key changes hold (distinct from the migrations').
    private static let lockKey: Int64 = 0x4865_6172_7468_0002

    private static func read(_ db: PostgresConnection) throws -> [StoredSigningKey] {
        try db.query("SELECT kid, pem, created_at, retired_at FROM auth_signing_keys ORDER BY created_at, kid").rows
            .map { row in
                StoredSigningKey(
                    id: try row.string(0) ?? "", pem: try row.string(1) ?? "", createdAt: try row.int(2) ?? 0,
                    retiredAt: try row.int(3))
            }
    }
}
