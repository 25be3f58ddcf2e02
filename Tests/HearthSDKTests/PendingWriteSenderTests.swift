import Foundation
import Synchronization
import Testing

@testable import Hearth

/// The one pending-write state machine both durable queues (documents and tree) use, driven through a scripted
/// channel: order, retries after transient failures, a refusal dropping only its own write, answers that come
/// before anyone waits, going offline and terminating.
@Suite struct PendingWriteSenderTests {
    struct Refused: Error, Equatable { let id: Int64 }
    struct Unreachable: Error {}
    struct Stopped: Error {}

    /// What the server does with each attempt at a write.
    enum Attempt: Sendable {
        case acknowledge
        case unreachable
        case refuse
    }

    /// A queue of IDs whose server answers are scripted per write (an unscripted attempt is acknowledged).
    final class ScriptedChannel: PendingWriteChannel {
        struct State {
            var queue: [Int64] = []
            var script: [Int64: [Attempt]] = [:]
            var attempts: [Int64] = []
            var delivered: [Int64] = []
            var refused: [Int64] = []
            var interruptions = 0
        }

        let state = Mutex(State())

        init(queue: [Int64], script: [Int64: [Attempt]] = [:]) {
            state.withLock {
                $0.queue = queue
                $0.script = script
            }
        }

        func oldest() -> Int64? { state.withLock { $0.queue.first } }

        func id(of write: Int64) -> Int64 { write }

        func deliver(_ write: Int64) async throws {
            let attempt = state.withLock { state -> Attempt in
                state.attempts.append(write)
                guard var steps = state.script[write], !steps.isEmpty else { return .acknowledge }
                let step = steps.removeFirst()
                state.script[write] = steps
                return step
            }
            switch attempt {
            case .acknowledge:
                state.withLock {
                    $0.delivered.append(write)
                    $0.queue.removeAll { $0 == write }
                }
            case .unreachable: throw Unreachable()
            case .refuse: throw Refused(id: write)
            }
        }

        func isTransient(_ error: any Error) -> Bool { error is Unreachable }

        func interrupted() async { state.withLock { $0.interruptions += 1 } }

        func refuse(_ write: Int64) async {
            state.withLock {
                $0.refused.append(write)
                $0.queue.removeAll { $0 == write }
            }
        }

        var snapshot: State { state.withLock { $0 } }
    }

    private let quick = PendingWriteBackoff(initial: .milliseconds(1), maximum: .milliseconds(4))

    @Test func sendsOldestFirstAndAnswersEachWaiter() async throws {
        let channel = ScriptedChannel(queue: [1, 2, 3])
        let sender = PendingWriteSender(channel: channel, backoff: quick)
        try await sender.wait(for: 3)
        try await sender.wait(for: 1)
        try await sender.wait(for: 2)
        #expect(channel.snapshot.delivered == [1, 2, 3])
    }

    @Test func retriesAfterTransientFailuresWithoutReordering() async throws {
        let channel = ScriptedChannel(queue: [1, 2], script: [1: [.unreachable, .unreachable, .unreachable]])
        let sender = PendingWriteSender(channel: channel, backoff: quick)
        try await sender.wait(for: 2)
        let state = channel.snapshot
        #expect(state.attempts == [1, 1, 1, 1, 2])
        #expect(state.delivered == [1, 2])
        #expect(state.interruptions == 3)
        #expect(state.refused.isEmpty)
    }

    @Test func aRefusalDropsOnlyTheRefusedWrite() async throws {
        let channel = ScriptedChannel(queue: [1, 2, 3], script: [2: [.refuse]])
        let sender = PendingWriteSender(channel: channel, backoff: quick)
        await #expect(throws: Refused(id: 2)) { try await sender.wait(for: 2) }
        try await sender.wait(for: 3)
        try await sender.wait(for: 1)
        let state = channel.snapshot
        #expect(state.delivered == [1, 3])
        #expect(state.refused == [2])
    }

    @Test func anAnswerThatCameBeforeTheWaiterIsKeptForIt() async throws {
        let channel = ScriptedChannel(queue: [1, 2, 3], script: [2: [.refuse]])
        let sender = PendingWriteSender(channel: channel, backoff: quick)
        // The last write's waiter sees every earlier answer arrive first; the others then ask.
        try await sender.wait(for: 3)
        try await sender.wait(for: 1)
        await #expect(throws: Refused(id: 2)) { try await sender.wait(for: 2) }
    }

    @Test func nothingIsSentWhileOfflineAndAllIsSentOnceOnline() async throws {
        let channel = ScriptedChannel(queue: [1, 2])
        let sender = PendingWriteSender(channel: channel, backoff: quick)
        sender.setOnline(false)
        await sender.resume()
        #expect(channel.snapshot.attempts.isEmpty)
        sender.setOnline(true)
        try await sender.wait(for: 2)
        #expect(channel.snapshot.delivered == [1, 2])
    }

    @Test func terminatingFailsTheWaitersAndKeepsTheirWritesQueued() async throws {
        let channel = ScriptedChannel(queue: [1], script: [1: Array(repeating: .unreachable, count: 10_000)])
        let sender = PendingWriteSender(channel: channel, backoff: quick)
        let waiting = Task { try await sender.wait(for: 1) }
        while channel.snapshot.attempts.count < 2 { try await Task.sleep(for: .milliseconds(1)) }
        await sender.terminate(failing: Stopped())
        await #expect(throws: Stopped.self) { try await waiting.value }
        let attemptsAtStop = channel.snapshot.attempts.count
        await sender.resume()
        try await Task.sleep(for: .milliseconds(20))
        let state = channel.snapshot
        #expect(state.queue == [1])
        #expect(state.refused.isEmpty)
        // At most the attempt already under way when it stopped; never a new one after `resume()`.
        #expect(state.attempts.count <= attemptsAtStop + 1)
    }

    @Test func backoffDoublesUpToItsCap() {
        let backoff = PendingWriteBackoff.standard
        #expect(backoff.delay(afterFailures: 1) == .milliseconds(100))
        #expect(backoff.delay(afterFailures: 2) == .milliseconds(200))
        #expect(backoff.delay(afterFailures: 4) == .milliseconds(800))
        #expect(backoff.delay(afterFailures: 5) == .milliseconds(1600))
        #expect(backoff.delay(afterFailures: 6) == .seconds(2))
        #expect(backoff.delay(afterFailures: 1_000) == .seconds(2))
    }
}
