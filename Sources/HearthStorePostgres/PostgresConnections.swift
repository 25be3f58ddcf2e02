internal import HearthPostgres
import Synchronization

/// The engine's connections to its database, opened on demand and kept idle between uses (up to `maxIdle`). A
/// connection that failed is dropped rather than used again, so after the server restarts the engine reconnects by
/// itself.
final class PostgresConnections: Sendable {
    private let conninfo: String
    private let maxIdle: Int
    private let state = Mutex(State())

    private struct State {
        var idle: [PostgresConnection] = []
        var closed = false
    }

    init(conninfo: String, maxIdle: Int) {
        self.conninfo = conninfo
        self.maxIdle = maxIdle
    }

    /// Runs `body` on a connection. A read may run again: when `body` failed because its connection was gone (an
    /// idle connection the server dropped on restart), it runs once more on a new one.
    func withConnection<T>(idempotent: Bool, _ body: (PostgresConnection) throws -> T) throws -> T {
        let connection = try checkOut()
        do {
            let value = try body(connection)
            checkIn(connection)
            return value
        } catch let error as PostgresError where error.isConnectionFailure && idempotent {
            connection.close()
            let fresh = try open()
            defer { checkIn(fresh) }
            return try body(fresh)
        } catch {
            checkIn(connection)
            throw error
        }
    }

    /// Runs `body` inside `BEGIN … COMMIT` on a connection, rolling back if it throws. A connection found gone at
    /// `BEGIN` is replaced before anything of the transaction reached the server; a failure after that is the
    /// caller's (a commit cut off at `COMMIT` may or may not have landed).
    func withTransaction<T>(_ begin: String, _ body: (PostgresConnection) throws -> T) throws -> T {
        var connection = try checkOut()
        do {
            try connection.query(begin)
        } catch let error as PostgresError where error.isConnectionFailure {
            connection.close()
            connection = try open()
            do {
                try connection.query(begin)
            } catch {
                checkIn(connection)
                throw error
            }
        } catch {
            checkIn(connection)
            throw error
        }
        defer { checkIn(connection) }
        do {
            let value = try body(connection)
            try connection.query("COMMIT")
            return value
        } catch {
            // A broken connection cannot roll back; the server discards the transaction itself.
            _ = try? connection.query("ROLLBACK")
            throw error
        }
    }

    /// Closes every idle connection and refuses new ones.
    func close() {
        let idle = state.withLock { state in
            state.closed = true
            defer { state.idle = [] }
            return state.idle
        }
        for connection in idle { connection.close() }
    }

    private func checkOut() throws -> PostgresConnection {
        let (idle, closed) = state.withLock { state in (state.idle.popLast(), state.closed) }
        if closed { throw PostgresError(kind: .connectionLost, message: "the store is closed") }
        return try idle ?? open()
    }

    private func open() throws -> PostgresConnection {
        try PostgresConnection(conninfo: conninfo)
    }

    private func checkIn(_ connection: PostgresConnection) {
        let kept =
            connection.isHealthy
            && state.withLock { state in
                guard !state.closed, state.idle.count < maxIdle else { return false }
                state.idle.append(connection)
                return true
            }
        if !kept { connection.close() }
    }
}
