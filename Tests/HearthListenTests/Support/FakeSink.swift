import Synchronization

@testable import HearthListen

/// Records what the hub sends; can refuse sends to play a slow or vanished client.
final class FakeSink: ListenSink {
    struct State {
        var batches: [[ListenResponse]] = []
        var heartbeats = 0
        var closed = false
        var refuse = false
    }

    let state = Mutex(State())

    func send(_ responses: [ListenResponse]) -> Bool {
        state.withLock { state in
            guard !state.refuse, !state.closed else { return false }
            state.batches.append(responses)
            return true
        }
    }

    func heartbeat() -> Bool {
        state.withLock { state in
            guard !state.refuse, !state.closed else { return false }
            state.heartbeats += 1
            return true
        }
    }

    func close() { state.withLock { $0.closed = true } }

    var responses: [ListenResponse] { state.withLock { $0.batches.flatMap { $0 } } }
    var batches: [[ListenResponse]] { state.withLock { $0.batches } }
    var isClosed: Bool { state.withLock { $0.closed } }

    /// Forgets what was received so far.
    func reset() { state.withLock { $0.batches = [] } }

    func refuse() { state.withLock { $0.refuse = true } }
}
