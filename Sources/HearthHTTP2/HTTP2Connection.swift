import Foundation
import Synchronization

/// The part of one HTTP/2 connection that handler tasks touch: per-stream state and the commands for the
/// connection's thread, under one lock, and the pipe that wakes that thread.
///
/// The nghttp2 session itself is never touched here; only the connection's thread (`HTTP2ConnectionLoop`) calls
/// into it, applying the queued commands between its reads and writes.
final class HTTP2Connection: Sendable {
    /// Work for the connection's thread.
    enum Command: Sendable {
        /// Submit the response head; `body` says whether DATA (and trailers) may follow.
        case respond(Int32, [(name: String, value: String)], body: Bool)
        /// New data or trailers were queued for a deferred stream.
        case resume(Int32)
        /// The handler took `count` bytes of the stream's body: open the client's window by as much.
        case consume(Int32, Int)
        /// RST_STREAM.
        case reset(Int32, UInt32)
        /// GOAWAY: no new streams; close once the open ones finish.
        case goAway
        /// Close now, cancelling every open stream.
        case close
    }

    struct Shared: ~Copyable {
        var streams: [Int32: StreamState] = [:]
        var commands: [Command] = []
        /// The thread has finished: nothing is queued or woken any more.
        var closed = false
    }

    let shared = Mutex(Shared())
    /// The read and write ends of the wake pipe.
    let wakeRead: Int32
    let wakeWrite: Int32
    /// `Configuration.streamSendBudget`.
    let sendBudget: Int
    /// The client's IP address as text (`127.0.0.1`), or `unknown`.
    let remoteAddress: String
    /// Tells apart the tasks waiting in `sendData`, so a cancelled one is taken out alone.
    private let nextWaiterToken = Atomic<UInt64>(0)

    init(sendBudget: Int, remoteAddress: String = "unknown") throws {
        self.remoteAddress = remoteAddress
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw HTTP2ServerError("could not create a wake pipe: errno \(errno)") }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        self.sendBudget = sendBudget
    }

    /// Queues commands and wakes the thread, unless the connection is gone (the commands are then moot).
    func enqueue(_ commands: Command...) {
        shared.withLock { shared in
            guard !shared.closed else { return }
            shared.commands += commands
            // Written under the lock, so the pipe is never written after the thread closed it.
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
        }
    }

    // MARK: - Receive side

    func nextBodyChunk(stream id: Int32) async throws -> [UInt8]? {
        // A reading task that is cancelled (a task group ending the call, say) stops waiting at once; the stream
        // itself is left as it is.
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[UInt8]?, any Error>) in
                enum Outcome {
                    case chunk([UInt8], consume: Bool)
                    case finished
                    case failed(any Error)
                    case waiting
                }
                let outcome = shared.withLock { shared -> Outcome in
                    guard var state = shared.streams[id] else { return .failed(HTTP2StreamError.cancelled) }
                    defer { shared.streams[id] = state }
                    if state.cancelled { return .failed(HTTP2StreamError.cancelled) }
                    if let chunk = state.takeInbound() { return .chunk(chunk, consume: !state.closed) }
                    if state.inboundFinished || state.closed { return .finished }
                    guard state.bodyWaiter == nil else {
                        return .failed(HTTP2StreamError.invalidState("the request body is already being read"))
                    }
                    // Checked under the lock the cancellation handler takes: it either sees this waiter or
                    // ran before, and then the task is already marked cancelled here.
                    if Task.isCancelled { return .failed(CancellationError()) }
                    state.bodyWaiter = continuation
                    return .waiting
                }
                switch outcome {
                case .chunk(let chunk, let consume):
                    if consume { enqueue(.consume(id, chunk.count)) }
                    continuation.resume(returning: chunk)
                case .finished: continuation.resume(returning: nil)
                case .failed(let error): continuation.resume(throwing: error)
                case .waiting: break
                }
            }
        } onCancel: {
            let waiter = shared.withLock { shared -> CheckedContinuation<[UInt8]?, any Error>? in
                guard var state = shared.streams[id], let waiter = state.bodyWaiter else { return nil }
                state.bodyWaiter = nil
                shared.streams[id] = state
                return waiter
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    // MARK: - Send side

    func sendHeaders(stream id: Int32, _ headers: [(name: String, value: String)]) throws {
        try shared.withLock { shared in
            guard var state = shared.streams[id], !state.cancelled else { throw HTTP2StreamError.cancelled }
            guard state.phase == .idle else {
                throw HTTP2StreamError.invalidState("the response head was already sent")
            }
            state.phase = .open
            shared.streams[id] = state
        }
        enqueue(.respond(id, headers, body: true))
    }

    func sendData(stream id: Int32, _ bytes: [UInt8]) async throws {
        guard !bytes.isEmpty else { return }
        let mustResume = try shared.withLock { shared -> Bool in
            guard var state = shared.streams[id], !state.cancelled else { throw HTTP2StreamError.cancelled }
            guard state.phase == .open else {
                throw HTTP2StreamError.invalidState(
                    state.phase == .idle ? "data before the response head" : "data after the trailers")
            }
            state.outbound += bytes
            let resume = state.deferred
            state.deferred = false
            shared.streams[id] = state
            return resume
        }
        if mustResume { enqueue(.resume(id)) }
        try await waitForBudget(stream: id)
    }

    private func waitForBudget(stream id: Int32) async throws {
        let token = nextWaiterToken.add(1, ordering: .relaxed).newValue
        // A cancelled sending task stops waiting at once, as a cancelled reader does; its bytes stay queued.
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = shared.withLock { shared -> Result<Bool, any Error> in
                    guard var state = shared.streams[id], !state.cancelled else {
                        return .failure(HTTP2StreamError.cancelled)
                    }
                    guard state.outboundBytes > sendBudget else { return .success(true) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.sendWaiters[token] = continuation
                    shared.streams[id] = state
                    return .success(false)
                }
                switch outcome {
                case .success(true): continuation.resume()
                case .success(false): break
                case .failure(let error): continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            let waiter = shared.withLock { shared -> CheckedContinuation<Void, any Error>? in
                guard var state = shared.streams[id], let waiter = state.sendWaiters.removeValue(forKey: token) else {
                    return nil
                }
                shared.streams[id] = state
                return waiter
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    func sendTrailers(stream id: Int32, _ trailers: [(name: String, value: String)]) throws {
        let command = try shared.withLock { shared -> Command? in
            guard var state = shared.streams[id], !state.cancelled else { throw HTTP2StreamError.cancelled }
            defer { shared.streams[id] = state }
            switch state.phase {
            case .idle:
                state.phase = .ended
                let head = trailers.contains { $0.name == ":status" } ? trailers : [(":status", "200")] + trailers
                return .respond(id, head, body: false)
            case .open:
                state.phase = .trailersQueued
                state.trailers = trailers
                let resume = state.deferred
                state.deferred = false
                return resume ? .resume(id) : nil
            case .trailersQueued, .ended:
                throw HTTP2StreamError.invalidState("the response was already ended")
            }
        }
        if let command { enqueue(command) }
    }

    func reset(stream id: Int32, errorCode: UInt32) {
        let send = shared.withLock { shared -> Bool in
            guard var state = shared.streams[id], !state.closed, !state.cancelled else { return false }
            state.phase = .ended
            shared.streams[id] = state
            return true
        }
        if send { enqueue(.reset(id, errorCode)) }
    }

    func isCancelled(stream id: Int32) -> Bool {
        shared.withLock { $0.streams[id]?.cancelled ?? true }
    }

    func onCancel(stream id: Int32, _ body: @escaping @Sendable () -> Void) {
        let runNow = shared.withLock { shared -> Bool in
            guard var state = shared.streams[id] else { return true }
            if state.cancelled { return true }
            // A completed stream never cancels: the handler would be kept for nothing.
            if state.closed { return false }
            state.cancelHandlers.append(body)
            shared.streams[id] = state
            return false
        }
        if runNow { body() }
    }

    /// The handler returned: a response it left unfinished is reset, and the entry goes once the session is done
    /// with the stream too.
    func handlerFinished(stream id: Int32) {
        let resetNeeded = shared.withLock { shared -> Bool in
            guard var state = shared.streams[id] else { return false }
            if state.closed {
                shared.streams[id] = nil
                return false
            }
            state.handlerFinished = true
            let unfinished = !state.cancelled && state.phase != .ended && state.phase != .trailersQueued
            if unfinished { state.phase = .ended }
            shared.streams[id] = state
            return unfinished
        }
        // 2 is INTERNAL_ERROR: the client must not take a cut-off response for a complete one.
        if resetNeeded { enqueue(.reset(id, 2)) }
    }
}

/// A failure to set up a connection.
struct HTTP2ServerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
