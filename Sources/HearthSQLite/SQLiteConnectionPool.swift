internal import CSQLite
internal import Dispatch
internal import Synchronization

/// Read-only connections to a WAL database, each lent to one caller at a time.
///
/// In WAL mode readers see the last committed snapshot and never wait for the writer, so a handful of these serve
/// all reads while one separate read-write connection writes. Connections open lazily, up to `size`; when all are
/// lent out, callers wait up to `acquireTimeout` and then get `SQLITE_BUSY`, so overload surfaces as an error
/// instead of an unbounded queue.
public final class SQLiteConnectionPool: Sendable {
    private struct State {
        var idle: [SQLiteConnection] = []
        var opened = 0
        var isClosed = false
    }

    private let path: String
    private let options: SQLiteConnection.Options
    private let acquireTimeout: Duration
    /// One permit per connection. Mutex has no condition variable; a counting semaphore gives the bounded wait.
    private let permits: DispatchSemaphore
    private let state = Mutex(State())

    /// Prepares a pool of `size` read-only connections to `path`; `options.readOnly` and `create` are overridden.
    /// One connection opens now, so a bad path fails here rather than on the first read.
    public init(
        path: String, size: Int, options: SQLiteConnection.Options, acquireTimeout: Duration = .seconds(10)
    ) throws(SQLiteError) {
        precondition(size > 0, "a pool needs at least one connection")
        var options = options
        options.readOnly = true
        options.create = false
        self.path = path
        self.options = options
        self.acquireTimeout = acquireTimeout
        // Starting at 0 and signalling up: libdispatch traps if a semaphore is freed below its initial value.
        permits = DispatchSemaphore(value: 0)
        for _ in 0..<size { permits.signal() }
        let first = try SQLiteConnection(path: path, options: options)
        state.withLock { state in
            state.idle.append(first)
            state.opened = 1
        }
    }

    /// Lends a connection to `body` and takes it back afterwards, rolling back any transaction `body` left open.
    /// Do not nest calls on one thread: with every connection lent out, the inner call would wait for the outer.
    public func withConnection<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        let connection = try checkOut()
        defer { checkIn(connection) }
        return try body(connection)
    }

    /// Closes idle connections now and lent ones when they come back; later `withConnection` calls fail.
    public func close() {
        let idle = state.withLock { state in
            state.isClosed = true
            defer { state.idle.removeAll() }
            return state.idle
        }
        for connection in idle { connection.close() }
    }

    private func checkOut() throws(SQLiteError) -> SQLiteConnection {
        let (seconds, attoseconds) = acquireTimeout.components
        let (nanoseconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let wait = overflow ? Int.max : Int(clamping: nanoseconds + attoseconds / 1_000_000_000)
        guard permits.wait(timeout: .now() + .nanoseconds(max(0, wait))) == .success else {
            throw SQLiteError(
                extendedCode: SQLITE_BUSY, message: "no pooled connection became free within \(acquireTimeout)")
        }
        enum Next {
            case closed
            case reuse(SQLiteConnection)
            case open
        }
        let next = state.withLock { state -> Next in
            if state.isClosed { return .closed }
            if let connection = state.idle.popLast() { return .reuse(connection) }
            state.opened += 1
            return .open
        }
        switch next {
        case .reuse(let connection):
            return connection
        case .closed:
            // Pass the permit on so every waiter wakes up and sees the pool is closed.
            permits.signal()
            throw .misuse("the connection pool is closed")
        case .open:
            do {
                return try SQLiteConnection(path: path, options: options)
            } catch {
                state.withLock { $0.opened -= 1 }
                permits.signal()
                throw error
            }
        }
    }

    private func checkIn(_ connection: SQLiteConnection) {
        connection.rollbackIfOpen()
        let keep = state.withLock { state in
            if state.isClosed { return false }
            state.idle.append(connection)
            return true
        }
        if !keep { connection.close() }
        permits.signal()
    }
}
