import Foundation
import HearthCore
import HearthStore
import HearthStoreConformance
import HearthStoreSQLite
import Synchronization
import Testing

/// Point reads are served from a cache of recently read documents; these check that a read never returns a
/// version older than an acknowledged write, whatever the order of reads and writes.
@Suite struct DocumentCacheTests {
    @Test func aReadAfterAnOverwriteADeleteOrAWipeSeesIt() async throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        try await store.commitOrThrow([set("c/a", ["v": .integer(1)])])
        #expect(try store.document(at: path("c/a"))?.fields() == ["v": .integer(1)])
        #expect(try store.document(at: path("c/a"))?.fields() == ["v": .integer(1)])
        try await store.commitOrThrow([set("c/a", ["v": .integer(2)])])
        #expect(try store.document(at: path("c/a"))?.fields() == ["v": .integer(2)])
        try await store.commitOrThrow([Write(path: path("c/a"), operation: .delete)])
        #expect(try store.document(at: path("c/a")) == nil)
        try await store.commitOrThrow([set("c/a", ["v": .integer(3)])])
        #expect(try store.document(at: path("c/a"))?.fields() == ["v": .integer(3)])
        let wiped = await withCheckedContinuation { continuation in
            store.deleteAllDocuments { continuation.resume(returning: $0) }
        }
        #expect(try wiped.get() == 1)
        #expect(try store.document(at: path("c/a")) == nil)
    }

    @Test func aFailedCommitLeavesTheCachedVersionRight() async throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        try await store.commitOrThrow([set("c/a", ["v": .integer(1)])])
        #expect(try store.document(at: path("c/a"))?.fields() == ["v": .integer(1)])
        let failed = await store.commit([
            set("c/a", ["v": .integer(2)]),
            Write(path: path("c/missing"), operation: .delete, precondition: .exists(true)),
        ])
        #expect((try? failed.get()) == nil)
        #expect(try store.document(at: path("c/a"))?.fields() == ["v": .integer(1)])
        try await store.commitOrThrow([set("c/a", ["v": .integer(4)])])
        #expect(try store.document(at: path("c/a"))?.fields() == ["v": .integer(4)])
    }

    @Test func readsRacingWritesNeverSeeAnOlderVersionThanTheLastAcknowledged() async throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        let documents = (0..<4).map { path("c/d\($0)") }
        try await store.commitOrThrow(
            documents.map { Write(path: $0, operation: .update(fields: ["v": .integer(0)], mask: nil)) })
        let race = Race(documents: documents.count)
        // Readers fill the cache as fast as they can while each document is overwritten 200 times; every read
        // must return at least the value acknowledged before it started.
        await withTaskGroup(of: Void.self) { group in
            for reader in 0..<2 {
                group.addTask {
                    var index = reader
                    while !race.done.load(ordering: .relaxed) {
                        // Yield so the writing task gets a pool thread between reads.
                        await Task.yield()
                        index = (index + 1) % documents.count
                        let floor = race.acknowledged.withLock { $0[index] }
                        let read = try? store.document(at: documents[index])?.fields()["v"]
                        guard case .integer(let value)? = read, value >= floor else {
                            race.stale.add(1, ordering: .relaxed)
                            continue
                        }
                    }
                }
            }
            group.addTask {
                for round in 1...200 {
                    for (index, document) in documents.enumerated() {
                        _ = try? await store.commitOrThrow([
                            Write(path: document, operation: .update(fields: ["v": .integer(Int64(round))], mask: nil))
                        ])
                        race.acknowledged.withLock { $0[index] = Int64(round) }
                    }
                }
                race.done.store(true, ordering: .relaxed)
            }
        }
        #expect(race.stale.load(ordering: .relaxed) == 0)
        for document in documents {
            #expect(try store.document(at: document)?.fields() == ["v": .integer(200)])
        }
    }

    @Test func aSmallCacheStillReadsEveryDocumentRight() async throws {
        let temporary = try TemporaryStore { $0.documentCacheEntries = 3 }
        let store = temporary.store
        try await store.commitOrThrow((0..<20).map { set("c/d\($0)", ["v": .integer(Int64($0))]) })
        for _ in 0..<3 {
            for index in 0..<20 {
                #expect(try store.document(at: path("c/d\(index)"))?.fields() == ["v": .integer(Int64(index))])
            }
        }
        try await store.commitOrThrow([set("c/d19", ["v": .integer(-1)])])
        #expect(try store.document(at: path("c/d19"))?.fields() == ["v": .integer(-1)])
    }
}

/// What the racing readers and the writer share.
private final class Race: Sendable {
    let acknowledged: Mutex<[Int64]>
    let stale = Atomic<Int>(0)
    let done = Atomic<Bool>(false)

    init(documents: Int) {
        acknowledged = Mutex([Int64](repeating: 0, count: documents))
    }
}
