import Dispatch
import Foundation
import HearthCore
import HearthPostgres
import HearthPostgresTestSupport
import HearthStorage
import HearthStorePostgres
import Synchronization
import Testing

/// Resumable upload sessions shared through PostgreSQL: three file stores (three nodes, each with its own storage
/// directory) on one database, any of which continues, queries, finishes or cancels a session another began.
@Suite("PostgreSQL resumable upload sessions", TestCluster.requirement)
struct PostgresUploadSessionsTests {
    /// Three nodes' file stores on one fresh database, their bytes in chunks of 1,000 so that chunks make many rows;
    /// each node's clock is its own, moved by `advance`.
    final class Nodes: Sendable {
        let info: String
        let engines: [PostgresDocumentStore]
        let stores: [FileStore]
        private let directories: [String]
        /// How far each node's clock is ahead of the system's, in microseconds.
        private let offsets = Offsets()

        final class Offsets: Sendable {
            let values = Mutex<[Int64]>([0, 0, 0])
        }

        init(lifetime: Duration = .seconds(3600)) throws {
            info = try TestCluster.freshDatabase()
            var engines: [PostgresDocumentStore] = []
            var stores: [FileStore] = []
            var directories: [String] = []
            for index in 0..<3 {
                let engine = try PostgresDocumentStore(configuration: .init(conninfo: info))
                let directory = NSTemporaryDirectory() + "hearth-shared-uploads-\(UUID().uuidString)"
                var configuration = FileStore.Configuration(directory: directory)
                configuration.shared = PostgresObjects(store: engine, chunkBytes: 1000)
                configuration.sessionLifetime = lifetime
                let offsets = offsets
                configuration.clock = WallClock {
                    Timestamp(microseconds: WallClock.system.microseconds + offsets.values.withLock { $0[index] })
                }
                engines.append(engine)
                stores.append(try FileStore(configuration: configuration))
                directories.append(directory)
            }
            self.engines = engines
            self.stores = stores
            self.directories = directories
        }

        /// Moves node `index`'s clock `duration` ahead.
        func advance(_ index: Int, by duration: Duration) {
            offsets.values.withLock { $0[index] += duration.components.seconds * 1_000_000 }
        }

        /// One value from the database, outside any node.
        func count(_ sql: String, _ parameters: [PostgresParameter] = []) throws -> Int64 {
            try PostgresConnection(conninfo: info).query(sql, parameters)[0].int(0) ?? -1
        }

        func close() {
            for store in stores { store.close() }
            for engine in engines { engine.close() }
            for directory in directories { try? FileManager.default.removeItem(atPath: directory) }
        }
    }

    /// Appends `bytes` on `store` as the next chunk of `session` as that node last read it.
    private static func append(
        _ bytes: [UInt8], to session: UploadSession, on store: FileStore
    ) throws -> ChunkOutcome {
        let appender = try store.appender(for: session)
        try bytes.withUnsafeBytes { try appender.write($0) }
        return try appender.record(in: store)
    }

    /// Everything the object's bytes hold, as `store` serves them.
    private static func contents(_ object: StoredObject, on store: FileStore) throws -> [UInt8] {
        let descriptor = try store.openBytes(of: object)
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            bytes += buffer[..<count]
        }
        return bytes
    }

    private static func pattern(_ count: Int, seed: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ seed) }
    }

    @Test func aSessionBegunOnOneNodeIsContinuedOnTwoAndFinishedOnTheSecond() throws {
        let nodes = try Nodes()
        defer { nodes.close() }
        let bytes = Self.pattern(7_777, seed: 5)
        let session = try nodes.stores[0].startSession(
            bucket: "b", name: "big.bin", attributes: ObjectAttributes(contentType: "application/x-big"))
        // Chunks of several sizes, alternately on the first and the second node, each from where the session stands.
        var offset = 0
        for (turn, size) in [2_500, 1_700, 1, 3_000, 576].enumerated() {
            let store = nodes.stores[turn % 2]
            let current = try #require(try store.session(session.id))
            #expect(current.received == Int64(offset))
            let outcome = try Self.append(Array(bytes[offset..<offset + size]), to: current, on: store)
            offset += size
            #expect(outcome == .recorded(Int64(offset)))
        }
        #expect(offset == bytes.count)
        let queried = try #require(try nodes.stores[2].session(session.id), "the third node sees the session")
        #expect(queried.received == Int64(bytes.count))
        #expect(queried.attributes.contentType == "application/x-big")
        // Cut as a one-request upload of the same bytes is: full chunks of 1,000 bytes, the last one shorter.
        #expect(
            try nodes.count("SELECT max(length(data)) FROM storage_blob_chunks WHERE blob = $1", [.text(session.blob)])
                == 1000, "chunks of at most 1,000 bytes")
        #expect(
            try nodes.count("SELECT count(*) FROM storage_blob_chunks WHERE blob = $1", [.text(session.blob)]) == 8,
            "7,777 bytes in 8 chunks")

        let object = try nodes.stores[1].finalize(try #require(try nodes.stores[1].session(session.id)))
        #expect(object.size == Int64(bytes.count))
        #expect(object.attributes.contentType == "application/x-big")
        // The checksums a one-request upload of the same bytes gets.
        let single = try nodes.stores[2].put(bytes, bucket: "b", name: "single.bin", attributes: ObjectAttributes())
        #expect(object.md5Hash == single.md5Hash)
        #expect(object.crc32c == single.crc32c)
        let served = try #require(try nodes.stores[0].object(bucket: "b", name: "big.bin"))
        #expect(served == object)
        #expect(try Self.contents(served, on: nodes.stores[0]) == bytes)
        #expect(try Self.contents(served, on: nodes.stores[2]) == bytes)

        // Finished: the session is gone on every node, and a chunk or a finish sent to it is refused.
        for store in nodes.stores { #expect(try store.session(session.id) == nil) }
        #expect(try nodes.count("SELECT count(*) FROM storage_upload_sessions") == 0)
        let late = HearthError.catching { _ = try Self.append([1, 2], to: queried, on: nodes.stores[2]) }
        #expect(late?.code == .notFound)
        #expect(HearthError.catching { _ = try nodes.stores[0].finalize(queried) }?.code == .notFound)
        #expect(try Self.contents(served, on: nodes.stores[1]) == bytes, "the late chunk changed nothing")
    }

    @Test func anEmptyUploadBecomesAnEmptyObject() throws {
        let nodes = try Nodes()
        defer { nodes.close() }
        let session = try nodes.stores[0].startSession(bucket: "b", name: "empty", attributes: ObjectAttributes())
        let object = try nodes.stores[1].finalize(try #require(try nodes.stores[1].session(session.id)))
        #expect(object.size == 0)
        #expect(try Self.contents(object, on: nodes.stores[2]) == [])
    }

    @Test func ofTwoChunksSentAtOneOffsetOnTwoNodesOneIsStoredAndTheOtherToldWhereToResume() throws {
        let nodes = try Nodes()
        defer { nodes.close() }
        let session = try nodes.stores[0].startSession(bucket: "b", name: "race", attributes: ObjectAttributes())
        let head = Self.pattern(1_500, seed: 1)
        #expect(try Self.append(head, to: session, on: nodes.stores[0]) == .recorded(1_500))
        let at1500 = try #require(try nodes.stores[0].session(session.id))

        // The same offset from two nodes at once: one chunk is stored, the other refused whole. The session row is
        // held from outside until both appends wait for it, so the two truly meet at the database.
        let candidates = [Self.pattern(2_200, seed: 2), Self.pattern(900, seed: 3)]
        let outcomes = Mutex<[Int: Result<ChunkOutcome, any Error>]>([:])
        let held = try HeldRows(
            conninfo: nodes.info, "SELECT 1 FROM storage_upload_sessions WHERE id = $1 FOR UPDATE", [.text(session.id)])
        let appends = DispatchGroup()
        for index in 0..<2 {
            DispatchQueue.global().async(group: appends) {
                let result = Result { try Self.append(candidates[index], to: at1500, on: nodes.stores[1 + index]) }
                outcomes.withLock { $0[index] = result }
            }
        }
        try held.waitForWaiters(2, like: "UPDATE storage_upload_sessions%")
        try held.release()
        appends.wait()
        let results = outcomes.withLock { $0 }
        let stored = try (0..<2).filter { index in
            if case .recorded = try #require(results[index]).get() { return true }
            return false
        }
        #expect(stored.count == 1, "\(results)")
        let winner = try #require(stored.first)
        let expected = head + candidates[winner]
        #expect(try results[winner]?.get() == .recorded(Int64(expected.count)))
        #expect(try results[1 - winner]?.get() == .moved(Int64(expected.count)), "the size to resume from")

        // Sent again from where the session was, on the first node: refused the same way, nothing stored.
        #expect(try Self.append([9, 9, 9], to: at1500, on: nodes.stores[0]) == .moved(Int64(expected.count)))
        let object = try nodes.stores[2].finalize(try #require(try nodes.stores[2].session(session.id)))
        #expect(object.size == Int64(expected.count))
        #expect(try Self.contents(object, on: nodes.stores[0]) == expected)
        for directory in nodes.stores.map(\.configuration.directory) {
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: directory + "/tmp")) ?? []).isEmpty)
        }
    }

    @Test func aSessionCancelledOnAnotherNodeIsGoneWithItsBytes() throws {
        let nodes = try Nodes()
        defer { nodes.close() }
        let session = try nodes.stores[0].startSession(bucket: "b", name: "gone", attributes: ObjectAttributes())
        #expect(try Self.append(Self.pattern(2_345, seed: 4), to: session, on: nodes.stores[0]) == .recorded(2_345))
        let live = try #require(try nodes.stores[1].session(session.id))
        #expect(try nodes.stores[1].cancel(live))
        #expect(try nodes.stores[2].cancel(live) == false, "cancelled once")
        for store in nodes.stores { #expect(try store.session(session.id) == nil) }
        #expect(
            try nodes.count("SELECT count(*) FROM storage_blob_chunks WHERE blob = $1", [.text(session.blob)]) == 0)
        let late = HearthError.catching { _ = try Self.append([1], to: live, on: nodes.stores[0]) }
        #expect(late?.code == .notFound)
        #expect(HearthError.catching { _ = try nodes.stores[2].finalize(live) }?.code == .notFound)
        #expect(try nodes.stores[0].object(bucket: "b", name: "gone") == nil)
    }

    @Test func anExpiredSessionIsSweptWithItsBytesByAnotherNode() throws {
        let nodes = try Nodes(lifetime: .seconds(60))
        defer { nodes.close() }
        let old = try nodes.stores[0].startSession(bucket: "b", name: "old", attributes: ObjectAttributes())
        #expect(try Self.append(Self.pattern(3_100, seed: 6), to: old, on: nodes.stores[0]) == .recorded(3_100))
        nodes.advance(1, by: .seconds(120))
        #expect(try nodes.stores[1].session(old.id) == nil, "expired for a node whose clock passed its expiry")
        let expired = HearthError.catching { _ = try Self.append([1], to: old, on: nodes.stores[1]) }
        #expect(expired?.code == .notFound, "no chunk goes to an expired session")
        // The next session started anywhere sweeps the expired ones, bytes and all.
        let fresh = try nodes.stores[1].startSession(bucket: "b", name: "new", attributes: ObjectAttributes())
        #expect(try nodes.stores[0].session(old.id) == nil, "swept: gone for every node")
        #expect(try nodes.count("SELECT count(*) FROM storage_blob_chunks WHERE blob = $1", [.text(old.blob)]) == 0)
        #expect(try nodes.count("SELECT count(*) FROM storage_upload_sessions") == 1)
        #expect(try nodes.stores[0].session(fresh.id) != nil, "a live session stays")
        #expect(HearthError.catching { _ = try Self.append([1], to: old, on: nodes.stores[0]) }?.code == .notFound)
    }

    @Test func aSweepRacingAnAppendLeavesNoBytesBehind() throws {
        let nodes = try Nodes(lifetime: .seconds(60))
        defer { nodes.close() }
        let session = try nodes.stores[0].startSession(bucket: "b", name: "late", attributes: ObjectAttributes())
        #expect(try Self.append(Self.pattern(1_200, seed: 7), to: session, on: nodes.stores[0]) == .recorded(1_200))
        let current = try #require(try nodes.stores[0].session(session.id))
        // Live for the first node, expired for the second, whose next start sweeps it: the append and the sweep
        // both wait for the held row and meet once it is let go.
        nodes.advance(1, by: .seconds(120))
        let held = try HeldRows(
            conninfo: nodes.info, "SELECT 1 FROM storage_upload_sessions WHERE id = $1 FOR UPDATE", [.text(session.id)])
        let racing = DispatchGroup()
        let appended = Mutex<Result<ChunkOutcome, any Error>?>(nil)
        let started = Mutex<Result<UploadSession, any Error>?>(nil)
        DispatchQueue.global().async(group: racing) {
            let result = Result { try Self.append(Self.pattern(2_500, seed: 8), to: current, on: nodes.stores[0]) }
            appended.withLock { $0 = result }
        }
        DispatchQueue.global().async(group: racing) {
            let result = Result {
                try nodes.stores[1].startSession(bucket: "b", name: "next", attributes: ObjectAttributes())
            }
            started.withLock { $0 = result }
        }
        try held.waitForWaiters(1, like: "UPDATE storage_upload_sessions%")
        try held.waitForWaiters(1, like: "DELETE FROM storage_upload_sessions%")
        try held.release()
        racing.wait()

        // Whichever went first, the swept session is gone with every byte, the appended ones included.
        _ = try #require(started.withLock { $0 }).get()
        switch try #require(appended.withLock { $0 }) {
        case .success(let outcome): #expect(outcome == .recorded(3_700), "appended before the sweep")
        case .failure(let error): #expect((error as? HearthError)?.code == .notFound, "\(error)")
        }
        #expect(try nodes.stores[0].session(session.id) == nil)
        #expect(
            try nodes.count("SELECT count(*) FROM storage_blob_chunks WHERE blob = $1", [.text(session.blob)]) == 0)
    }
}

extension HearthError {
    /// The error `body` threw, if it was a `HearthError`; `nil` when it returned.
    fileprivate static func catching(_ body: () throws -> Void) -> HearthError? {
        do {
            try body()
            return nil
        } catch let error as HearthError {
            return error
        } catch {
            return .internal("\(error)")
        }
    }
}
