import Foundation
import HearthCore
import HearthPostgres
import HearthPostgresTestSupport
import HearthStorePostgres
import Testing

/// Files' bytes streamed into the shared database in chunks, and out again on another node.
@Suite("PostgreSQL file bytes", TestCluster.requirement)
struct PostgresBlobsTests {
    /// A temporary file holding `bytes`, open for reading from its start; the caller closes it.
    private static func file(_ bytes: [UInt8]) throws -> (path: String, descriptor: Int32) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-blob-\(UUID().uuidString)")
            .path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let descriptor = open(path, O_RDONLY)
        #expect(descriptor >= 0)
        return (path, descriptor)
    }

    /// What `blobs` writes out for `id`, through a temporary file.
    private static func readBack(_ id: String, from blobs: PostgresBlobs) throws -> [UInt8] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-out-\(UUID().uuidString)")
            .path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer {
            close(descriptor)
            unlink(path)
        }
        let count = try blobs.write(id, to: descriptor)
        let bytes = [UInt8](FileManager.default.contents(atPath: path) ?? Data())
        #expect(Int64(bytes.count) == count)
        return bytes
    }

    @Test func aFileOneNodePutsInChunksTheOtherWritesOutWhole() throws {
        let nodes = try TwoNodes()
        defer { nodes.close() }
        let first = PostgresBlobs(store: nodes.first, chunkBytes: 1000)
        let second = PostgresBlobs(store: nodes.second, chunkBytes: 1000)
        let bytes = (0..<3500).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let (path, descriptor) = try Self.file(bytes)
        defer {
            close(descriptor)
            unlink(path)
        }
        #expect(try first.put("b1", from: descriptor) == 3500)
        #expect(try Self.readBack("b1", from: second) == bytes)
        let chunks = try PostgresConnection(conninfo: nodes.info).query(
            "SELECT count(*), max(length(data)) FROM storage_blob_chunks WHERE blob = 'b1'")
        #expect(try chunks[0].int(0) == 4, "3,500 bytes in chunks of at most 1,000")
        #expect(try chunks[0].int(1) == 1000)

        let again = try HearthError.catching { _ = try first.put("b1", from: descriptor) }
        #expect(again?.code == .alreadyExists)
        #expect(try second.delete("b1"))
        #expect(try HearthError.catching { _ = try Self.readBack("b1", from: first) }?.code == .notFound)
        #expect(try first.delete("b1") == false)
    }

    @Test func anEmptyFileIsStoredAndDiffersFromAMissingOne() throws {
        let nodes = try TwoNodes()
        defer { nodes.close() }
        let blobs = PostgresBlobs(store: nodes.first)
        let (path, descriptor) = try Self.file([])
        defer {
            close(descriptor)
            unlink(path)
        }
        #expect(try blobs.put("empty", from: descriptor) == 0)
        #expect(try Self.readBack("empty", from: blobs) == [])
        #expect(try HearthError.catching { _ = try Self.readBack("missing", from: blobs) }?.code == .notFound)
    }
}

extension HearthError {
    /// The error `body` threw, if it was a `HearthError`; `nil` when it returned.
    fileprivate static func catching(_ body: () throws -> Void) throws -> HearthError? {
        do {
            try body()
            return nil
        } catch let error as HearthError {
            return error
        }
    }
}
