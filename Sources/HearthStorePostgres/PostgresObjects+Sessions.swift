import Foundation
package import HearthCore
internal import HearthPostgres
package import HearthStorage

/// Resumable upload sessions in `storage_upload_sessions`, their bytes so far the chunks of their blob in
/// `storage_blob_chunks`: any node continues, queries, finishes or cancels a session another began. The session row
/// is the lock: an append, the finish and a cancel each take it first, so two chunks sent at one offset on two nodes
/// are stored one after the other, and the second finds the offset moved. (The `SharedUploadSessions` half of
/// `SharedObjects`.)
extension PostgresObjects {
    private static let sessionColumns = "id, bucket, name, attributes, blob, received, chunks, expires_ms"

    /// The advisory lock a sweep holds (any constant no other Hearth lock uses): one node sweeps at a time, so two
    /// sweeps never lock the same expired rows in different orders.
    private static let sweepKey: Int64 = 0x4865_6172_7468_0047

    package func startSession(_ session: UploadSession) throws(HearthError) {
        try write("starting an upload") { db in
            _ = try db.query(
                """
                INSERT INTO storage_upload_sessions(\(Self.sessionColumns)) VALUES ($1, $2, $3, $4, $5, 0, 0, $6)
                """,
                [
                    .text(session.id), .text(session.bucket), .text(session.name),
                    .text(session.attributes.sessionJSON), .text(session.blob), .int(session.expiresMillis),
                ])
        }
    }

    package func session(_ id: String, nowMillis: Int64) throws(HearthError) -> UploadSession? {
        try store.read("reading an upload session") { db in
            try db.query(
                "SELECT \(Self.sessionColumns) FROM storage_upload_sessions WHERE id = $1 AND expires_ms >= $2",
                [.text(id), .int(nowMillis)]
            ).rows.first.map(Self.decodeSession)
        }
    }

    package func append(
        to session: UploadSession, count: Int64, from descriptor: Int32, nowMillis: Int64
    ) throws(HearthError) -> ChunkOutcome {
        let chunkBytes = blobs.chunkBytes
        return try write("storing an upload chunk") { db in
            // Waits for a concurrent append's row lock; once that commits, `received` no longer matches here.
            let claimed = try db.query(
                """
                UPDATE storage_upload_sessions SET received = received + $3
                WHERE id = $1 AND received = $2 AND expires_ms >= $4 RETURNING chunks
                """, [.text(session.id), .int(session.received), .int(count), .int(nowMillis)])
            guard let first = try claimed.rows.first?.int(0) else {
                return try Self.refusal(session.id, nowMillis: nowMillis, in: db)
            }
            let (chunks, bytes) = try PostgresBlobs.extend(
                session.blob, chunks: first, from: descriptor, chunkBytes: chunkBytes, in: db)
            guard bytes == count else {
                throw HearthError.internal("The upload chunk holds \(bytes) bytes, not the \(count) received.")
            }
            try db.query(
                "UPDATE storage_upload_sessions SET chunks = chunks + $2 WHERE id = $1",
                [.text(session.id), .int(chunks)])
            return .recorded(session.received + count)
        }
    }

    package func finish(
        _ session: UploadSession, nowMillis: Int64,
        object make: (_ size: Int64, _ md5: String, _ crc32c: String) -> StoredObject
    ) throws(HearthError) -> (object: StoredObject, replaced: String?) {
        try write("finishing an upload") { db in
            let locked = try db.query(
                """
                SELECT \(Self.sessionColumns) FROM storage_upload_sessions WHERE id = $1 AND expires_ms >= $2
                FOR UPDATE
                """, [.text(session.id), .int(nowMillis)])
            guard let row = locked.rows.first else { throw Self.gone }
            let current = try Self.decodeSession(row)
            let chunks = try row.int(6) ?? 0
            guard current.received == session.received else {
                throw HearthError(
                    .aborted,
                    "A chunk was stored since: the session has \(current.received) bytes, not \(session.received).")
            }
            // The checksums of the bytes as stored, a chunk at a time.
            let sums = RunningChecksums()
            try PostgresBlobs.forEachChunk(current.blob, chunks: chunks, in: db) { data in
                data.withUnsafeBytes { sums.update($0) }
            }
            let (size, md5, crc32c) = sums.finish()
            guard size == current.received else {
                throw HearthError.internal("The upload holds \(size) bytes; the session recorded \(current.received).")
            }
            let object = make(size, md5, crc32c)
            try db.query("DELETE FROM storage_upload_sessions WHERE id = $1", [.text(session.id)])
            // The bytes are in place already, but for an empty upload's chunk 0 (an empty blob, not a missing one).
            let replaced = try Self.replaceRow(with: object, ifGenerationMatch: nil, in: db) {
                if chunks == 0 { try PostgresBlobs.insertEmpty(current.blob, in: db) }
            }
            return (object, replaced)
        }
    }

    package func cancelSession(_ id: String) throws(HearthError) -> Bool {
        try write("cancelling an upload") { db in
            let removed = try db.query(
                "DELETE FROM storage_upload_sessions WHERE id = $1 RETURNING blob", [.text(id)])
            guard let blob = try removed.rows.first?.string(0) else { return false }
            // A statement of its own, so it sees the chunks of an append that held the row until just now.
            try PostgresBlobs.remove(blob, in: db)
            return true
        }
    }

    @discardableResult
    package func sweepSessions(nowMillis: Int64) throws(HearthError) -> Int {
        try write("sweeping expired uploads") { db in
            // Another node sweeping now sweeps these too.
            guard try db.query("SELECT pg_try_advisory_xact_lock($1)", [.int(Self.sweepKey)])[0].bool(0) == true
            else { return 0 }
            let expired = try db.query(
                "DELETE FROM storage_upload_sessions WHERE expires_ms < $1 RETURNING blob", [.int(nowMillis)])
            for row in expired.rows {
                if let blob = try row.string(0) { try PostgresBlobs.remove(blob, in: db) }
            }
            return expired.count
        }
    }

    /// Why an append claimed no session: `.moved` when the session lives with another size, else `NOT_FOUND`.
    private static func refusal(_ id: String, nowMillis: Int64, in db: PostgresConnection) throws -> ChunkOutcome {
        let rows = try db.query(
            "SELECT received FROM storage_upload_sessions WHERE id = $1 AND expires_ms >= $2",
            [.text(id), .int(nowMillis)])
        guard let received = try rows.rows.first?.int(0) else { throw gone }
        return .moved(received)
    }

    private static var gone: HearthError {
        .notFound("No live upload session with this upload_id (it finished, was cancelled or expired).")
    }

    private static func decodeSession(_ row: PostgresRow) throws -> UploadSession {
        UploadSession(
            id: try row.string(0) ?? "", bucket: try row.string(1) ?? "", name: try row.string(2) ?? "",
            received: try row.int(5) ?? 0, attributes: ObjectAttributes(sessionJSON: try row.string(3)),
            expiresMillis: try row.int(7) ?? 0, blob: try row.string(4) ?? "")
    }
}
