import Dispatch
import Foundation
import HearthCore
import HearthStore
import HearthStoreConformance
import HearthStoreSQLite
import Synchronization
import Testing

/// The rules check a commit carries into the store runs inside the commit's transaction: it sees exactly the state
/// the commit applies to, and a refusal applies nothing.
@Suite struct CommitJudgeTests {
    private static let denied = HearthError(.permissionDenied, "Missing or insufficient permissions.")

    /// A commit submitted without waiting, whose outcome arrives later.
    private final class Pending: Sendable {
        private let stream: AsyncStream<Result<CommitResult, HearthError>>
        private let continuation: AsyncStream<Result<CommitResult, HearthError>>.Continuation

        init(_ store: SQLiteDocumentStore, _ writes: [Write], judge: CommitJudge?) {
            (stream, continuation) = AsyncStream.makeStream()
            let continuation = continuation
            store.commit(writes, in: DatabaseName(project: "test"), transaction: nil, judge: judge) { result in
                continuation.yield(result)
                continuation.finish()
            }
        }

        var result: Result<CommitResult, HearthError> {
            get async {
                for await result in stream { return result }
                return .failure(.internal("no outcome"))
            }
        }
    }

    @Test func theJudgeSeesAWriteCommittedJustBeforeItThatNoReadConnectionSeesYet() async throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        // Commit A holds the writer inside its judge until B and C are queued, so B and C share one transaction:
        // when C is judged, B's write exists only on the writer connection. A check made before the commit, through
        // a read connection (the old design), would have found no lock and let C through.
        let (started, startedContinuation) = AsyncStream<Void>.makeStream()
        let release = DispatchSemaphore(value: 0)
        let holder = Pending(
            store, [set("c/holder", [:])],
            judge: { _ in
                startedContinuation.yield()
                release.wait()
            })
        for await _ in started { break }
        let lock = Pending(store, [set("c/lock", ["by": .string("bob")])], judge: nil)
        let seenByReaders = Mutex<[Bool]>([])
        let post = Pending(
            store, [set("c/post", ["text": .string("hi")])],
            judge: { proposal throws(HearthError) in
                let reader = try store.document(at: path("c/lock"))
                seenByReaders.withLock { $0.append(reader != nil) }
                // The rule: no post while the lock exists.
                if try proposal.document(at: path("c/lock")) != nil { throw Self.denied }
            })
        release.signal()

        _ = try await holder.result.get()
        _ = try await lock.result.get()
        let posted = await post.result
        #expect(throws: Self.denied) { try posted.get() }
        #expect(seenByReaders.withLock { $0 } == [false])
        #expect(try store.document(at: path("c/post")) == nil)
        #expect(try store.document(at: path("c/lock")) != nil)
    }

    @Test func aRefusedCommitAppliesNoneOfItsWritesAndLogsNothing() async throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        try await store.commitOrThrow([set("c/kept", ["v": .integer(1)])])
        let logged = try store.changes(after: 0, limit: 100).count
        let writes = [
            set("c/new", ["v": .integer(2)]), set("c/kept", ["v": .integer(3)]),
            Write(path: path("c/kept"), operation: .delete),
        ]
        for batch in [writes, [writes[0]]] {
            let result = await Pending(store, batch, judge: { _ throws(HearthError) in throw Self.denied }).result
            #expect(throws: Self.denied) { try result.get() }
        }
        #expect(try store.document(at: path("c/new")) == nil)
        #expect(try store.document(at: path("c/kept"))?.fields() == ["v": .integer(1)])
        #expect(try store.changes(after: 0, limit: 100).count == logged)
        #expect(store.statistics().commits == 1)
    }

    @Test func theProposalShowsEachWriteAsItFindsAndLeavesItsDocumentAndOthersAsTheyAre() async throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        try await store.commitOrThrow([set("c/a", ["v": .integer(1)]), set("c/other", ["o": .boolean(true)])])
        struct Seen: Sendable {
            var methods: [String] = []
            var before: [String: Value]??
            var after: [String: Value]??
            var other: [String: Value]??
            var missing: [String: Value]??
            var stamped: Value?
            var commitTime: Timestamp?
        }
        let seen = Mutex(Seen())
        let stamp = Write(
            path: path("c/a"), operation: .update(fields: ["v": .integer(2)], mask: nil),
            transforms: [FieldTransform(fieldPath: FieldPath(segments: ["at"]), kind: .serverTimestamp)])
        let pending = Pending(
            store, [stamp, Write(path: path("c/a"), operation: .delete), set("c/b", ["w": .integer(5)])],
            judge: { proposal throws(HearthError) in
                let before = try proposal.document(at: path("c/a"))?.fields
                let after = try proposal.documentAfter(at: path("c/a"))?.fields
                let other = try proposal.documentAfter(at: path("c/other"))?.fields
                let missing = try proposal.document(at: path("c/b"))?.fields
                seen.withLock { seen in
                    seen.methods = proposal.changes.map { change in
                        change.before == nil ? "create" : change.after == nil ? "delete" : "update"
                    }
                    seen.before = .some(before)
                    seen.after = .some(after)
                    seen.other = .some(other)
                    seen.missing = .some(missing)
                    seen.stamped = proposal.changes[0].after?.fields["at"]
                    seen.commitTime = proposal.commitTime
                }
            }
        )
        let commit = try await pending.result.get()
        let view = seen.withLock { $0 }
        #expect(view.methods == ["update", "delete", "create"])
        #expect(view.before == .some(["v": .integer(1)]))
        #expect(view.after == .some(nil))
        #expect(view.other == .some(["o": .boolean(true)]))
        #expect(view.missing == .some(nil))
        #expect(view.commitTime == commit.commitTime)
        #expect(view.stamped == .timestamp(commit.commitTime.truncatedToMilliseconds))
    }
}
