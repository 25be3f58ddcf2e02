import Dispatch
import Foundation
import HearthCore
import HearthPostgres
import HearthPostgresTestSupport
import HearthStore
import HearthStoreConformance
import HearthStorePostgres
import Synchronization
import Testing

/// Document commits without a lock every commit shares (PostgresCommitOrder): nodes commit side by side, numbers
/// commit out of order, and every node's feed still delivers the one log, in sequence order, each change once.
@Suite("PostgreSQL commit order without a global lock", TestCluster.requirement)
struct PostgresCommitOrderTests {
    /// Waits (up to a generous bound, so a slow machine only makes it slower) until `done` holds.
    private func eventually(_ done: () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(60)
        while !done(), Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
    }

    /// Waits for `semaphore` off the cooperative pool.
    private func wait(for semaphore: DispatchSemaphore) async {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                semaphore.wait()
                continuation.resume()
            }
        }
    }

    /// Waits for `semaphore` off the cooperative pool, up to `seconds`; whether it was signalled in time.
    private func wait(for semaphore: DispatchSemaphore, upTo seconds: Double) async -> Bool {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: semaphore.wait(timeout: .now() + seconds) == .success)
            }
        }
    }

    private func increment(_ text: String) -> Write {
        Write(
            path: path(text), operation: .transform,
            transforms: [FieldTransform(fieldPath: FieldPath(segments: ["n"]), kind: .increment(.integer(1)))])
    }

    /// Every node's feed, recorded.
    private func record(
        _ stores: [PostgresDocumentStore]
    ) -> ([TreeLocked<[ChangeRecord]>], [ChangeFeed<ChangeRecord>.Subscription]) {
        let seen = stores.map { _ in TreeLocked<[ChangeRecord]>([]) }
        let subscriptions = zip(stores, seen).map { store, box in
            store.changeFeed.subscribe { records in box.withLock { $0 += records } }
        }
        return (seen, subscriptions)
    }

    @Test func threeNodesCommittingAtOnceWithLateCommittingNumbersAllDeliverTheWholeLogInOneOrder() async throws {
        var configuration = PostgresDocumentStore.Configuration(conninfo: try TestCluster.freshDatabase())
        // Some commits sleep in PostgreSQL after taking their numbers, for different lengths, so commits numbered
        // after them commit first, on the other nodes.
        configuration.pauseAfterNumbering = { sequences in
            sequences[0] % 3 == 0 ? 0.03 * Double(1 + sequences[0] % 4) : 0
        }
        let nodes = try (0..<3).map { _ in try PostgresDocumentStore(configuration: configuration) }
        defer { for node in nodes { node.close() } }
        // Recorded from the start: the other nodes deliver the first commit whenever they hear of it, which may be
        // after it was answered on the first.
        let (seen, subscriptions) = record(nodes)
        defer { for subscription in subscriptions { subscription.cancel() } }
        try await nodes[0].commitOrThrow([set("c/hot0", ["n": .integer(0)]), set("c/hot1", ["n": .integer(0)])])
        let head = try nodes[0].head()

        // Three tasks per node, ten commits each, of one to three writes; every other commit also increments one of
        // two shared documents, so commits of different nodes conflict there.
        let (tasks, commits) = (3, 10)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (n, node) in nodes.enumerated() {
                for task in 0..<tasks {
                    group.addTask {
                        for k in 0..<commits {
                            let i = n * 100 + task * 10 + k
                            var writes = (0...(i % 3)).map {
                                set("c/n\(n)-t\(task)-\(k)-\($0)", ["i": .integer(Int64(i))])
                            }
                            if k % 2 == 0 { writes.append(increment("c/hot\(i % 2)")) }
                            try await node.commitOrThrow(writes)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }

        let log = try nodes[1].changes(after: head, limit: 10_000)
        // The whole log, the first commit's two changes included.
        let whole = try nodes[1].changes(after: 0, limit: 10_000)
        #expect(Array(whole.dropFirst(2)) == log)
        let own = nodes.indices.flatMap { n in
            (0..<tasks).flatMap { task in
                (0..<commits).map { k in (n * 100 + task * 10 + k) % 3 + 1 + (k % 2 == 0 ? 1 : 0) }
            }
        }
        #expect(log.count == own.reduce(0, +))
        #expect(zip(log, log.dropFirst()).allSatisfy { $0.sequence < $1.sequence })
        try await eventually { seen.allSatisfy { $0.value.count >= whole.count } }
        for box in seen {
            // Exactly the log: every change, once, in sequence order, on every node.
            #expect(box.value.map(\.sequence) == whole.map(\.sequence))
            #expect(box.value == whole)
        }
        // Conflicting commits are numbered in commit order: each change of a shared document starts from what the
        // one numbered before it left, no increment is lost, and its update times strictly increase.
        let increments = nodes.count * tasks * (commits / 2)
        var total: Int64 = 0
        for hot in ["c/hot0", "c/hot1"] {
            let changes = log.filter { $0.path == path(hot) }
            #expect(zip(changes, changes.dropFirst()).allSatisfy { $0.after == $1.before })
            #expect(
                zip(changes, changes.dropFirst()).allSatisfy {
                    ($0.after?.updateTime.microseconds ?? 0) < ($1.after?.updateTime.microseconds ?? 0)
                })
            if case .integer(let n) = try nodes[2].document(at: path(hot))?.fields()["n"] { total += n }
        }
        #expect(total == Int64(increments))
    }

    @Test func aCommitHoldingItsNumberWhileOthersCommitPastItIsDeliveredOnceItCommitsNotSkipped() async throws {
        let info = try TestCluster.freshDatabase()
        let held = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        var slowConfiguration = PostgresDocumentStore.Configuration(conninfo: info)
        slowConfiguration.pauseAfterNumbering = holdingFirstNumbers(held: held, release: release)
        let slow = try PostgresDocumentStore(configuration: slowConfiguration)
        let fast = try PostgresDocumentStore(configuration: .init(conninfo: info))
        let observer = try PostgresDocumentStore(configuration: .init(conninfo: info))
        defer { for node in [slow, fast, observer] { node.close() } }
        let (seen, subscriptions) = record([slow, fast, observer])
        defer { for subscription in subscriptions { subscription.cancel() } }

        let slowCommit = Task { try await slow.commitOrThrow([set("c/held", ["v": .integer(1)])]) }
        await wait(for: held)
        // The held commit has its number; two commits on another node take later ones and commit in PostgreSQL.
        let fastCommits = Task {
            try await fast.commitOrThrow([set("c/past1", ["v": .integer(2)])])
            try await fast.commitOrThrow([set("c/past2", ["v": .integer(3)])])
        }
        let raw = try PostgresConnection(conninfo: info)
        try await eventually {
            (try? raw.query("SELECT count(*) FROM changes WHERE path LIKE 'c/past%'")[0].int(0)) == 1
        }
        #expect(try raw.query("SELECT count(*) FROM changes WHERE path LIKE 'c/past%'")[0].int(0) == 1)
        // Nothing past the held number is delivered anywhere while it may still commit.
        #expect(seen.allSatisfy { $0.value.isEmpty })
        release.signal()
        _ = try await slowCommit.value
        try await fastCommits.value

        let log = try observer.changes(after: 0, limit: 10)
        #expect(log.map(\.path) == [path("c/held"), path("c/past1"), path("c/past2")])
        try await eventually { seen.allSatisfy { $0.value.count >= 3 } }
        for box in seen { #expect(box.value == log) }
    }

    @Test func oneNodesCommitsOnDifferentDocumentsRunSideBySide() async throws {
        let info = try TestCluster.freshDatabase()
        let held = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        var configuration = PostgresDocumentStore.Configuration(conninfo: info)
        configuration.pauseAfterNumbering = holdingFirstNumbers(held: held, release: release)
        let node = try PostgresDocumentStore(configuration: configuration)
        defer { node.close() }
        let (seen, subscriptions) = record([node])
        defer { for subscription in subscriptions { subscription.cancel() } }

        let first = Task { try await node.commitOrThrow([set("c/held", ["v": .integer(1)])]) }
        await wait(for: held)
        // The first commit is held between its stamp and its COMMIT; the same node's next commit, on another
        // document, goes through PostgreSQL meanwhile (one commit at a time, it would wait behind the first).
        let second = Task { try await node.commitOrThrow([set("c/beside", ["v": .integer(2)])]) }
        let raw = try PostgresConnection(conninfo: info)
        let count = "SELECT count(*) FROM changes WHERE path = 'c/beside'"
        try await eventually { (try? raw.query(count)[0].int(0)) == 1 }
        #expect(try raw.query(count)[0].int(0) == 1)
        // Its answer waits until it is on the feed, which cannot pass the held commit's number.
        #expect(seen[0].value.isEmpty)
        release.signal()
        let heldResult = try await first.value
        let besideResult = try await second.value

        let log = try node.changes(after: 0, limit: 10)
        #expect(log.map(\.path) == [path("c/held"), path("c/beside")])
        #expect(heldResult.commitTime < besideResult.commitTime, "times follow the log's order")
        try await eventually { seen[0].value.count >= 2 }
        #expect(seen[0].value == log)
    }

    @Test func commitTimesFollowTheLogOrderWhateverTheNodesClocksSay() async throws {
        let info = try TestCluster.freshDatabase()
        // One node's clock runs ten seconds ahead of the other's.
        var aheadConfiguration = PostgresDocumentStore.Configuration(conninfo: info)
        aheadConfiguration.clock = WallClock {
            Timestamp(microseconds: WallClock.system.now().microseconds + 10_000_000)
        }
        let ahead = try PostgresDocumentStore(configuration: aheadConfiguration)
        let behind = try PostgresDocumentStore(configuration: .init(conninfo: info))
        defer {
            ahead.close()
            behind.close()
        }
        var results: [CommitResult] = []
        for index in 0..<6 {
            let node = index % 2 == 0 ? ahead : behind
            results.append(try await node.commitOrThrow([set("c/d\(index)", ["i": .integer(Int64(index))])]))
        }
        // And at once, from both nodes.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 6..<30 {
                let node = index % 2 == 0 ? ahead : behind
                group.addTask {
                    _ = try await node.commitOrThrow([set("c/e\(index % 4)", ["i": .integer(Int64(index))])])
                }
            }
            try await group.waitForAll()
        }
        let log = try behind.changes(after: 0, limit: 100)
        #expect(log.count == 30)
        let times = log.map(\.commitTime.microseconds)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "\(times)")
        // The node behind answers with the times its commits were logged at, later than the node ahead's before.
        #expect(results.map(\.commitTime) == Array(log.prefix(6).map(\.commitTime)))
    }

    @Test func aListenerStartingAtAGapReadsAtTheLastStampedTimeNotAtItsNodesClock() async throws {
        let info = try TestCluster.freshDatabase()
        let writer = try PostgresDocumentStore(configuration: .init(conninfo: info))
        // The listening node's clock runs a minute ahead.
        var aheadConfiguration = PostgresDocumentStore.Configuration(conninfo: info)
        aheadConfiguration.clock = WallClock {
            Timestamp(microseconds: WallClock.system.now().microseconds + 60_000_000)
        }
        let listening = try PostgresDocumentStore(configuration: aheadConfiguration)
        defer {
            writer.close()
            listening.close()
        }
        #expect(try listening.headAndTime().time == nil, "an empty log cannot tell")
        let first = try await writer.commitOrThrow([set("c/a", ["v": .integer(1)])])
        // The head becomes a gap, as after a commit that rolled back once stamped.
        let raw = try PostgresConnection(conninfo: info)
        try raw.query("SELECT nextval('change_sequence')")
        let head = try listening.headAndTime()
        #expect(head.sequence == (try writer.changes(after: 0, limit: 1).first?.sequence ?? 0) + 1)
        // Not the listening node's clock, which is later than the next commit's time.
        #expect(head.time == first.commitTime)
        let next = try await writer.commitOrThrow([set("c/b", ["v": .integer(2)])])
        #expect(try #require(head.time) < next.commitTime)
    }

    /// Numbers have gaps (a commit rolled back after taking its numbers; a promoted standby's sequence resumes past
    /// what the old primary had logged ahead), so a position before a gap must still count as covered: otherwise a
    /// listener resuming there gets a reset and a full reload (seen after a failover in test_scale_out.py).
    @Test func aPositionBeforeAGapInTheNumbersIsStillCovered() async throws {
        let info = try TestCluster.freshDatabase()
        let store = try PostgresDocumentStore(configuration: .init(conninfo: info))
        defer { store.close() }
        try await store.commitOrThrow([set("c/before", ["v": .integer(1)])])
        let position = try store.head()
        let raw = try PostgresConnection(conninfo: info)
        // As a promoted standby does: the sequence jumps 32 numbers past the last one used.
        try raw.query("SELECT nextval('change_sequence') FROM generate_series(1, 32)")
        try await store.commitOrThrow([set("c/after", ["v": .integer(2)])])
        let after = try store.changes(after: position, limit: 10)
        #expect(after.map(\.path) == [path("c/after")])
        #expect(after.first.map { $0.sequence > position + 1 } == true, "the numbers have a gap")
        #expect(try store.covers(after: position))
    }

    @Test func aCommitHeldOpenOnOneNodeDoesNotHoldUpACommitOfAnotherDocumentOnAnother() async throws {
        let info = try TestCluster.freshDatabase()
        let one = try PostgresDocumentStore(configuration: .init(conninfo: info))
        let other = try PostgresDocumentStore(configuration: .init(conninfo: info))
        defer {
            one.close()
            other.close()
        }
        let (seen, subscriptions) = record([one, other])
        defer { for subscription in subscriptions { subscription.cancel() } }
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        // The judge holds the first commit open inside its PostgreSQL transaction, its document written.
        let held = Task {
            try await one.commit(
                [set("c/slow", ["v": .integer(1)])],
                judge: { _ throws(HearthError) in
                    entered.signal()
                    release.wait()
                }
            ).get()
        }
        await wait(for: entered)
        // A hang guard only: with a lock every commit shares, the second commit would wait for the first forever.
        let guardFired = Mutex(false)
        let watchdog = Task {
            try await Task.sleep(for: .seconds(120))
            guardFired.withLock { $0 = true }
            release.signal()
        }
        try await other.commitOrThrow([set("c/quick", ["v": .integer(2)])])
        #expect(!guardFired.withLock { $0 })
        #expect(try other.document(at: path("c/quick")) != nil)
        #expect(try other.document(at: path("c/slow")) == nil)
        if !guardFired.withLock({ $0 }) { release.signal() }
        _ = try await held.value
        watchdog.cancel()

        let log = try other.changes(after: 0, limit: 10)
        #expect(log.map(\.path) == [path("c/quick"), path("c/slow")])
        try await eventually { seen.allSatisfy { $0.value.count >= 2 } }
        for box in seen { #expect(box.value == log) }
    }

    @Test func aCommitHoldingItsNumberInAnotherDatabaseOnTheServerHoldsUpNoEngineHere() async throws {
        // Two databases on one PostgreSQL server, as two projects (or two tests) would have. One holds a commit
        // between taking its number and `COMMIT`.
        let held = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        var holdingConfiguration = PostgresDocumentStore.Configuration(conninfo: try TestCluster.freshDatabase())
        holdingConfiguration.pauseAfterNumbering = holdingFirstNumbers(held: held, release: release)
        let holding = try PostgresDocumentStore(configuration: holdingConfiguration)
        defer { holding.close() }
        let otherInfo = try TestCluster.freshDatabase()
        let heldCommit = Task { try await holding.commitOrThrow([set("c/held", ["v": .integer(1)])]) }
        await wait(for: held)

        // In the other database an engine opens (it reads its final point), commits (answered once the commit is on
        // its feed, past its final point) and reads its log, all while the first commit is still held. Off the
        // cooperative pool, so that a wait for the other database's commit blocks no task of this run.
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<[ChangeRecord], any Error>?>(nil)
        let other = Mutex<PostgresDocumentStore?>(nil)
        DispatchQueue.global().async {
            do {
                let store = try PostgresDocumentStore(configuration: .init(conninfo: otherInfo))
                other.withLock { $0 = store }
                let seen = TreeLocked<[ChangeRecord]>([])
                let subscription = store.changeFeed.subscribe { records in seen.withLock { $0 += records } }
                defer { subscription.cancel() }
                let answered = DispatchSemaphore(value: 0)
                store.commit([set("c/free", ["v": .integer(2)])], in: DatabaseName(project: "test")) { _ in
                    answered.signal()
                }
                answered.wait()
                _ = try store.head()
                outcome.withLock { $0 = .success(seen.value) }
            } catch {
                outcome.withLock { $0 = .failure(error) }
            }
            done.signal()
        }
        // Generous: the other database's work takes milliseconds; only a wait for the held commit takes this long.
        let inTime = await wait(for: done, upTo: 120)
        release.signal()
        _ = try await heldCommit.value
        if !inTime { await wait(for: done) }
        defer { other.withLock { $0 }?.close() }

        #expect(inTime, "an engine of another database waited for a commit it has no part in")
        let seen = try #require(outcome.withLock { $0 }).get()
        #expect(seen.map(\.path) == [path("c/free")])
        #expect(try holding.changes(after: 0, limit: 10).map(\.path) == [path("c/held")])
    }
}
