import HearthCore
import HearthGRPC
import HearthListen
import Synchronization

/// Carries one listen session over a gRPC `Listen` call: the hub queues responses here without waiting (its
/// thread serves every session), and the call's own task sends them, each as one `ListenResponse` message, as
/// fast as the client reads. At most `budget` bytes wait; a client further behind is cut off, as on SSE.
final class GRPCListenSink: ListenSink {
    /// The encoded responses, in order, for the call's task to send; finished when the session ends.
    let messages: AsyncStream<[UInt8]>
    private let continuation: AsyncStream<[UInt8]>.Continuation
    private let waiting = Atomic<Int>(0)
    private let budget: Atomic<Int>

    init(budget: Int) {
        self.budget = Atomic(budget)
        (messages, continuation) = AsyncStream.makeStream(of: [UInt8].self)
    }

    /// Sets the most bytes that may wait (the database's `--listen-buffer`, known once the first request names it).
    func limit(to bytes: Int) {
        budget.store(bytes, ordering: .relaxed)
    }

    func send(_ responses: [ListenResponse]) -> Bool {
        var encoded: [[UInt8]] = []
        encoded.reserveCapacity(responses.count)
        var total = 0
        for response in responses {
            // A response this server built always encodes; one that did not would be a bug, so it ends the session.
            guard let bytes = try? FirestoreRPC.listenResponse(response) else { return false }
            encoded.append(bytes)
            total += bytes.count
        }
        guard waiting.add(total, ordering: .relaxed).newValue <= budget.load(ordering: .relaxed) else {
            waiting.subtract(total, ordering: .relaxed)
            return false
        }
        for bytes in encoded {
            if case .terminated = continuation.yield(bytes) { return false }
        }
        return true
    }

    /// HTTP/2 keeps the connection alive itself, and a gRPC stream has no message that carries nothing, so a
    /// heartbeat only reports whether the call is still open.
    func heartbeat() -> Bool {
        if case .terminated = continuation.yield(with: .success([])) { return false }
        return true
    }

    func close() {
        continuation.finish()
    }

    /// Marks `bytes` as sent to the client.
    func sent(_ bytes: Int) {
        waiting.subtract(bytes, ordering: .relaxed)
    }
}
