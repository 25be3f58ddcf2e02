/// What a stream's handler and its connection's thread share, kept under the connection's lock.
struct StreamState {
    /// Where the response is.
    enum Phase: Equatable {
        /// Nothing sent yet.
        case idle
        /// The head is submitted; data may follow.
        case open
        /// Trailers wait behind the queued data.
        case trailersQueued
        /// Everything is submitted (or the stream was reset); nothing more may be sent.
        case ended
    }

    // MARK: Receive side

    /// DATA chunks received and not yet taken by the handler (not yet released to the client's window).
    var inbound: [[UInt8]] = []
    var inboundStart = 0
    /// Bytes in `inbound` from `inboundStart` on.
    var inboundBytes = 0
    /// END_STREAM arrived: once `inbound` is empty the body is finished.
    var inboundFinished = false
    /// A handler waiting for the next chunk.
    var bodyWaiter: CheckedContinuation<[UInt8]?, any Error>?

    // MARK: Send side

    var phase = Phase.idle
    /// Response bytes not yet handed to the session, from `outboundStart` on.
    var outbound: [UInt8] = []
    var outboundStart = 0
    var trailers: [(name: String, value: String)] = []
    /// The session was told there is no data (NGHTTP2_ERR_DEFERRED); new data must resume it.
    var deferred = false
    /// Handlers waiting for the unsent bytes to fall back under the budget, by a token their cancellation finds.
    var sendWaiters: [UInt64: CheckedContinuation<Void, any Error>] = [:]
    /// A frame with END_STREAM went out: a close after this is a completion, not a cancellation.
    var localEnded = false

    // MARK: Lifecycle

    /// Reset or lost before the response ended.
    var cancelled = false
    /// The session closed the stream; the entry stays until the handler returns too.
    var closed = false
    var handlerFinished = false
    var cancelHandlers: [@Sendable () -> Void] = []

    var outboundBytes: Int { outbound.count - outboundStart }

    /// Takes the next received chunk, if any.
    mutating func takeInbound() -> [UInt8]? {
        guard inboundStart < inbound.count else { return nil }
        let chunk = inbound[inboundStart]
        inbound[inboundStart] = []
        inboundStart += 1
        inboundBytes -= chunk.count
        if inboundStart == inbound.count {
            inbound.removeAll(keepingCapacity: true)
            inboundStart = 0
        }
        return chunk
    }

    /// Copies up to `count` unsent bytes into `buffer`; returns how many.
    mutating func takeOutbound(into buffer: UnsafeMutablePointer<UInt8>, count: Int) -> Int {
        let n = min(count, outboundBytes)
        guard n > 0 else { return 0 }
        outbound.withUnsafeBufferPointer { source in
            buffer.update(from: source.baseAddress! + outboundStart, count: n)
        }
        outboundStart += n
        // Sent bytes are dropped once they are most of the buffer, so it never holds much more than is unsent.
        if outboundStart == outbound.count {
            outbound.removeAll(keepingCapacity: outbound.capacity <= 256 * 1024)
            outboundStart = 0
        } else if outboundStart >= outbound.count / 2 {
            outbound.removeSubrange(0..<outboundStart)
            outboundStart = 0
        }
        return n
    }

    /// Marks the stream cancelled and hands back everything waiting on it, to be failed outside the lock.
    mutating func cancel() -> Cancellation {
        guard !cancelled else { return Cancellation() }
        cancelled = true
        phase = .ended
        let result = Cancellation(
            bodyWaiter: bodyWaiter, sendWaiters: Array(sendWaiters.values), handlers: cancelHandlers)
        bodyWaiter = nil
        sendWaiters = [:]
        cancelHandlers = []
        inbound = []
        inboundStart = 0
        inboundBytes = 0
        outbound = []
        outboundStart = 0
        return result
    }
}

/// Waiters and handlers of a cancelled stream, run once the lock is released.
struct Cancellation {
    var bodyWaiter: CheckedContinuation<[UInt8]?, any Error>? = nil
    var sendWaiters: [CheckedContinuation<Void, any Error>] = []
    var handlers: [@Sendable () -> Void] = []

    func run() {
        bodyWaiter?.resume(throwing: HTTP2StreamError.cancelled)
        for waiter in sendWaiters { waiter.resume(throwing: HTTP2StreamError.cancelled) }
        for handler in handlers { handler() }
    }
}
