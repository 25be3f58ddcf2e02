import Foundation
package import HearthCore
internal import HearthPostgres

/// Files' bytes in the PostgreSQL database every node shares (`storage_blob_chunks`), streamed in chunks so that no
/// file is ever whole in memory: what one node puts, any node writes out. `PostgresObjects` keeps each stored object's
/// bytes here.
package final class PostgresBlobs: Sendable {
    /// The most bytes one chunk (one row, one query) holds.
    package let chunkBytes: Int
    private let store: PostgresDocumentStore

    /// Blobs in the database of `store` (migrated when it opened), which its owner closes; chunks of at most a MiB
    /// unless `chunkBytes` says otherwise (tests use small ones to make many).
    package init(store: PostgresDocumentStore, chunkBytes: Int = 1 << 20) {
        self.store = store
        self.chunkBytes = max(1, min(chunkBytes, 1 << 20))
    }

    /// Reads `descriptor` from its offset to its end into the blob `id`, in one transaction: afterwards every node
    /// reads all of it, or, when reading or writing failed, nothing of it. Returns the byte count.
    /// - Throws: `ALREADY_EXISTS` for an ID in use, `UNAVAILABLE` when PostgreSQL is out of reach, `INTERNAL` when
    ///   the file cannot be read.
    package func put(_ id: String, from descriptor: Int32) throws(HearthError) -> Int64 {
        let chunkBytes = chunkBytes
        do {
            return try store.writer.withTransaction("BEGIN") { db in
                try Self.insert(id, from: descriptor, chunkBytes: chunkBytes, in: db)
            }
        } catch {
            throw hearthError(error, doing: "storing a file's bytes")
        }
    }

    /// Inserts the chunks of blob `id`, read from `descriptor` to its end, in the caller's transaction; the count.
    static func insert(_ id: String, from descriptor: Int32, chunkBytes: Int, in db: PostgresConnection) throws -> Int64
    {
        let taken = try db.query("SELECT 1 FROM storage_blob_chunks WHERE blob = $1 AND seq = 0", [.text(id)])
        guard taken.count == 0 else { throw HearthError(.alreadyExists, "The blob \(id) exists already.") }
        let (chunks, total) = try append(id, from: descriptor, sequence: 0, chunkBytes: chunkBytes, in: db)
        // Chunk 0 always, even empty.
        if chunks == 0 { try insertEmpty(id, in: db) }
        return total
    }

    /// Appends what `descriptor` holds from its offset to its end to blob `id` as chunks numbered from `sequence`, in
    /// the caller's transaction (no empty chunk: the caller knows whether the blob has chunk 0). Returns how many
    /// chunks and bytes it added.
    static func append(
        _ id: String, from descriptor: Int32, sequence first: Int64, chunkBytes: Int, in db: PostgresConnection
    ) throws -> (chunks: Int64, bytes: Int64) {
        var buffer = [UInt8](repeating: 0, count: chunkBytes)
        var sequence = first
        var total: Int64 = 0
        while true {
            let count = try fill(&buffer, from: descriptor)
            if count > 0 {
                try db.query(
                    "INSERT INTO storage_blob_chunks(blob, seq, data) VALUES ($1, $2, $3)",
                    [.text(id), .int(sequence), .binary(Array(buffer[0..<count]))])
                sequence += 1
                total += Int64(count)
            }
            if count < chunkBytes { return (sequence - first, total) }
        }
    }

    /// Appends what `descriptor` holds from its offset to its end to blob `id`, which has `chunks` chunks, in the
    /// caller's transaction: the last chunk is filled up to `chunkBytes` first and new chunks follow, so a blob written
    /// in many appends (a resumable upload's chunks) is cut as one written at once is. Returns how many chunks and
    /// bytes it added.
    static func extend(
        _ id: String, chunks: Int64, from descriptor: Int32, chunkBytes: Int, in db: PostgresConnection
    ) throws -> (chunks: Int64, bytes: Int64) {
        var topped: Int64 = 0
        if chunks > 0 {
            let last = try db.query(
                "SELECT length(data) FROM storage_blob_chunks WHERE blob = $1 AND seq = $2",
                [.text(id), .int(chunks - 1)])
            guard let length = try last.rows.first?.int(0) else {
                throw HearthError.internal("Chunk \(chunks - 1) of blob \(id) is missing.")
            }
            let room = chunkBytes - Int(length)
            if room > 0 {
                var buffer = [UInt8](repeating: 0, count: room)
                let count = try fill(&buffer, from: descriptor)
                if count > 0 {
                    try db.query(
                        "UPDATE storage_blob_chunks SET data = data || $3 WHERE blob = $1 AND seq = $2",
                        [.text(id), .int(chunks - 1), .binary(Array(buffer[0..<count]))])
                }
                topped = Int64(count)
                if count < room { return (0, topped) }
            }
        }
        let (added, bytes) = try append(id, from: descriptor, sequence: chunks, chunkBytes: chunkBytes, in: db)
        return (added, topped + bytes)
    }

    /// Inserts the empty chunk 0 of blob `id` in the caller's transaction: an empty blob, not a missing one.
    static func insertEmpty(_ id: String, in db: PostgresConnection) throws {
        try db.query("INSERT INTO storage_blob_chunks(blob, seq, data) VALUES ($1, 0, $2)", [.text(id), .binary([])])
    }

    /// Feeds the chunks of blob `id` to `body` in order, one query each, in the caller's transaction: the first
    /// `chunks` of them, or every one there is when `chunks` is `nil`. Returns how many it fed.
    /// - Throws: `INTERNAL` when one of the first `chunks` is missing.
    @discardableResult
    static func forEachChunk(
        _ id: String, chunks: Int64? = nil, in db: PostgresConnection, _ body: ([UInt8]) throws -> Void
    ) throws -> Int64 {
        var sequence: Int64 = 0
        while chunks.map({ sequence < $0 }) ?? true {
            let rows = try db.query(
                "SELECT data FROM storage_blob_chunks WHERE blob = $1 AND seq = $2", [.text(id), .int(sequence)],
                binaryResults: true)
            guard rows.count == 1, let data = try rows[0].bytes(0) else {
                if chunks == nil { return sequence }
                throw HearthError.internal("Chunk \(sequence) of blob \(id) is missing.")
            }
            try body(data)
            sequence += 1
        }
        return sequence
    }

    /// Deletes the chunks of blob `id` in the caller's transaction.
    static func remove(_ id: String, in db: PostgresConnection) throws {
        try db.query("DELETE FROM storage_blob_chunks WHERE blob = $1", [.text(id)])
    }

    /// Writes the blob `id` to `descriptor`, one chunk per query, all from one snapshot (a delete meanwhile does not
    /// cut it short). Returns the byte count.
    /// - Throws: `NOT_FOUND` when there is no such blob, `UNAVAILABLE` when PostgreSQL is out of reach, `INTERNAL`
    ///   when the descriptor cannot be written.
    package func write(_ id: String, to descriptor: Int32) throws(HearthError) -> Int64 {
        try store.readSnapshot("reading a file's bytes") { db in
            var total: Int64 = 0
            let chunks = try Self.forEachChunk(id, in: db) { data in
                try Self.writeAll(data, to: descriptor)
                total += Int64(data.count)
            }
            if chunks == 0 { throw HearthError.notFound("No stored bytes for blob \(id).") }
            return total
        }
    }

    /// Deletes the blob `id`; whether there was one.
    @discardableResult
    package func delete(_ id: String) throws(HearthError) -> Bool {
        do {
            return try store.writer.withConnection(idempotent: true) { db in
                try db.query("DELETE FROM storage_blob_chunks WHERE blob = $1", [.text(id)]).affectedRows > 0
            }
        } catch {
            throw hearthError(error, doing: "deleting a file's bytes")
        }
    }

    /// Reads into `buffer` until it is full or the file ends; how many bytes it holds.
    private static func fill(_ buffer: inout [UInt8], from descriptor: Int32) throws -> Int {
        var count = 0
        while count < buffer.count {
            let read = buffer.withUnsafeMutableBytes { bytes in
                Foundation.read(descriptor, bytes.baseAddress! + count, bytes.count - count)
            }
            if read == 0 { break }
            if read < 0 {
                if errno == EINTR { continue }
                throw HearthError.internal("Cannot read the file to store: errno \(errno).")
            }
            count += read
        }
        return count
    }

    private static func writeAll(_ data: [UInt8], to descriptor: Int32) throws {
        var offset = 0
        while offset < data.count {
            let written = data.withUnsafeBytes { bytes in
                Foundation.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw HearthError.internal("Cannot write a stored file's bytes: errno \(errno).")
            }
            offset += written
        }
    }
}
