internal import CMicroHTTPD
import Foundation
import Synchronization

/// A long-lived streaming response body, used for Server-Sent Events.
///
/// Return it from a responder as `.stream(stream)` and keep a reference; `send` from any thread. The bytes are
/// written as they are (format SSE frames yourself). While nothing is pending, the server parks the connection at no
/// cost. A parked connection cannot notice that the client went away, so send a heartbeat (an SSE comment such as
/// `":\n\n"`) now and then: a failed write ends the stream and runs the `onClose` handlers.
public final class HTTPEventStream: Sendable {
    /// The response status.
    public let status: Int
    /// Header fields to send; the server adds `Content-Type: text/event-stream` (unless given here) and
    /// `Cache-Control: no-cache`.
    public var headers: HTTPHeaders { headerFields.withLock { $0 } }
    private let headerFields: Mutex<HTTPHeaders>
    /// The most bytes that may wait for the client. A send that would exceed it cuts the client off instead, so a
    /// slow consumer cannot grow the server's memory.
    public let maxBufferedBytes: Int

    let state = Mutex(EventStreamState())

    /// A stream that will answer with `status` and `headers` once returned from a responder.
    public init(status: Int = 200, headers: HTTPHeaders = [], maxBufferedBytes: Int = 1 << 20) {
        self.status = status
        headerFields = Mutex(headers)
        self.maxBufferedBytes = max(0, maxBufferedBytes)
    }

    /// Adds header fields to send, such as a responder's CORS headers. Only fields added before the stream is returned
    /// from the responder are sent.
    public func addHeaders(_ extra: HTTPHeaders) {
        headerFields.withLock { $0.append(contentsOf: extra) }
    }

    /// Queues `bytes` for the client and wakes the connection.
    ///
    /// - Returns: `false` when the stream is already closed, or when this send would exceed `maxBufferedBytes`; in
    ///   the second case the stream is closed and the client cut off.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        var handlers: [@Sendable () -> Void] = []
        var report: (@Sendable (String) -> Void)?
        var reason = ""
        let accepted = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            let overOwn = state.pendingCount + bytes.count > maxBufferedBytes
            let overAll = !overOwn && !(state.budget?.reserve(bytes.count) ?? true)
            if overOwn || overAll {
                reason =
                    overOwn
                    ? "more than \(maxBufferedBytes) bytes were waiting for it"
                    : "the server's event streams together hold their limit of \(state.budget?.limit ?? 0) bytes"
                state.closed = true
                state.aborted = true
                state.dropPending()
                state.wakeConnection()
                // A client that stopped reading never lets the end of the response through, so the connection would
                // sit until the idle timeout holding its socket buffers: reset it now. The client sees the stream end
                // (a reset) and reconnects; libmicrohttpd sees the failed write and closes the connection.
                state.resetConnection()
                report = state.cutOffReport
                // A cut-off client may never drain its socket, so waiting for MHD to finish could take until the
                // connection timeout: tell the owner now.
                handlers = state.takeCloseHandlers()
                return false
            }
            guard !bytes.isEmpty else { return true }
            state.pending.append(contentsOf: bytes)
            state.wakeConnection()
            return true
        }
        report?("cut off a slow event-stream client: \(reason)")
        for handler in handlers { handler() }
        return accepted
    }

    /// Queues the UTF-8 bytes of `text`; see `send(_:)`.
    @discardableResult
    public func send(_ text: String) -> Bool {
        send(Array(text.utf8))
    }

    /// Ends the response once the bytes already queued have been written. Idempotent.
    public func close() {
        var handlers: [@Sendable () -> Void] = []
        state.withLock { state in
            guard !state.closed else { return }
            state.closed = true
            switch state.phase {
            case .unattached:
                // No connection will ever flush this stream, so it is complete now.
                handlers = state.takeCloseHandlers()
            case .attached:
                state.wakeConnection()
            case .finished:
                break
            }
        }
        for handler in handlers { handler() }
    }

    /// Whether the stream accepts no more bytes (closed, cut off, or the client went away).
    public var isClosed: Bool {
        state.withLock { $0.closed }
    }

    /// Runs `handler` once when the stream ends: the client disconnected, `close()` finished flushing, the client was
    /// cut off, or the server stopped. Runs it at once if the stream has already ended.
    public func onClose(_ handler: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.closeHandlersRan { return true }
            state.closeHandlers.append(handler)
            return false
        }
        if runNow { handler() }
    }

    /// Binds the stream to the connection that will carry it, its bytes counted against `budget` from now on;
    /// `false` if it already carries another response.
    func attach(
        to connection: ConnectionHandle, budget: StreamBufferBudget? = nil,
        reportCutOff: (@Sendable (String) -> Void)? = nil
    ) -> Bool {
        let socket = hearth_mhd_connection_fd(connection.pointer)
        return state.withLock { state in
            guard case .unattached = state.phase else { return false }
            state.phase = .attached(connection)
            state.socket = socket
            state.cutOffReport = reportCutOff
            if let budget, !state.closed {
                budget.charge(state.pendingCount)
                state.budget = budget
            }
            return true
        }
    }

    /// Called when libmicrohttpd has finished with the response (sent, failed, or torn down).
    func finish() {
        let handlers = state.withLock { state in
            state.phase = .finished
            state.closed = true
            state.suspended = false
            state.dropPending()
            return state.takeCloseHandlers()
        }
        for handler in handlers { handler() }
    }

    /// The content-reader step: copies pending bytes into `buffer`, or parks the connection when none are pending.
    /// Runs on the connection's daemon thread, the only thread allowed to suspend it.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        state.withLock { state in
            // A cut-off ends like a normal close. libmicrohttpd 0.9.75 leaves a chunked connection whose reader
            // reports an error half-closed until some later event on its thread, which may be minutes away.
            if state.aborted { return endOfStream }
            let available = state.pendingCount
            if available > 0 {
                let count = min(available, buffer.count)
                state.pending.withUnsafeBytes { pending in
                    buffer.baseAddress!.copyMemory(
                        from: pending.baseAddress! + state.readOffset, byteCount: count)
                }
                state.consume(count)
                return count
            }
            if state.closed { return endOfStream }
            guard case .attached(let connection) = state.phase else { return endOfStream }
            // Suspending under the stream lock means a concurrent send either saw `suspended == false` and appended
            // before this check, or sees `suspended == true` and resumes a connection that really is suspended.
            MHD_suspend_connection(connection.pointer)
            state.suspended = true
            return 0
        }
    }
}

/// libmicrohttpd's MHD_CONTENT_READER_END_OF_STREAM and MHD_CONTENT_READER_END_WITH_ERROR, which are cast macros
/// Swift does not import.
let endOfStream = -1
let endWithError = -2

/// The mutable part of an `HTTPEventStream`, guarded by its mutex.
struct EventStreamState: ~Copyable {
    enum Phase {
        case unattached
        case attached(ConnectionHandle)
        case finished
    }

    var phase = Phase.unattached
    var pending: [UInt8] = []
    /// Bytes at the front of `pending` already handed to libmicrohttpd; dropped in bulk to avoid O(n) shifts.
    var readOffset = 0
    var suspended = false
    var closed = false
    var aborted = false
    var closeHandlers: [@Sendable () -> Void] = []
    var closeHandlersRan = false
    /// The connection's socket while attached, for a cut-off to reset; -1 when unknown.
    var socket: Int32 = -1
    /// Where a cut-off is reported (the server's diagnostics).
    var cutOffReport: (@Sendable (String) -> Void)?
    /// The server's budget for all streams' pending bytes, once attached: every byte appended to `pending` is
    /// taken from it and every byte consumed or dropped given back.
    var budget: StreamBufferBudget?

    var pendingCount: Int { pending.count - readOffset }

    mutating func consume(_ count: Int) {
        budget?.release(count)
        readOffset += count
        if readOffset == pending.count {
            pending.removeAll(keepingCapacity: pending.capacity <= 64 * 1024)
            readOffset = 0
        } else if readOffset >= 64 * 1024 && readOffset * 2 >= pending.count {
            pending.removeFirst(readOffset)
            readOffset = 0
        }
    }

    mutating func dropPending() {
        budget?.release(pendingCount)
        pending = []
        readOffset = 0
    }

    /// Resumes the connection if the reader parked it. Called with the lock held so the connection cannot finish
    /// (and be freed) in between: `finish()` needs the same lock.
    mutating func wakeConnection() {
        guard suspended, case .attached(let connection) = phase else { return }
        suspended = false
        MHD_resume_connection(connection.pointer)
    }

    /// Aborts the connection with a reset: a zero linger turns libmicrohttpd's later close into an RST instead of
    /// a FIN stuck behind unread data, and the shutdown makes its pending write fail now. The lock is held and the
    /// phase is still `.attached`, so libmicrohttpd has not closed (or reused) the socket yet.
    mutating func resetConnection() {
        guard socket >= 0, case .attached = phase else { return }
        var option = linger(l_onoff: 1, l_linger: 0)
        setsockopt(socket, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        shutdown(socket, Int32(SHUT_RDWR))
    }

    mutating func takeCloseHandlers() -> [@Sendable () -> Void] {
        guard !closeHandlersRan else { return [] }
        closeHandlersRan = true
        defer { closeHandlers = [] }
        return closeHandlers
    }
}
