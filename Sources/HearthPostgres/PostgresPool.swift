/// A small pool of connections to one database: at most `capacity` open at once, callers beyond that wait their
/// turn in arrival order. A connection that broke is dropped rather than handed out again.
public actor PostgresPool {
    private let conninfo: String
    private let capacity: Int
    private var idle: [PostgresConnection] = []
    private var open = 0
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Makes a pool; connections open lazily on first use.
    public init(conninfo: String, capacity: Int = 4) {
        self.conninfo = conninfo
        self.capacity = max(1, capacity)
    }

    /// Runs `body` with a connection of its own, off the pool's actor, so callers up to the capacity run at once.
    /// The body's libpq calls block a thread while they run.
    public nonisolated func withConnection<T: Sendable>(
        _ body: @Sendable (PostgresConnection) throws -> T
    ) async throws -> T {
        let connection = try await checkOut()
        do {
            let value = try body(connection)
            await checkIn(connection)
            return value
        } catch {
            await checkIn(connection)
            throw error
        }
    }

    private func checkOut() async throws -> PostgresConnection {
        while true {
            if let connection = idle.popLast() { return connection }
            if open < capacity {
                open += 1
                do {
                    return try PostgresConnection(conninfo: conninfo)
                } catch {
                    open -= 1
                    wakeOne()
                    throw error
                }
            }
            await withCheckedContinuation { waiters.append($0) }
        }
    }

    private func checkIn(_ connection: PostgresConnection) {
        if connection.isHealthy {
            idle.append(connection)
        } else {
            connection.close()
            open -= 1
        }
        wakeOne()
    }

    private func wakeOne() {
        guard !waiters.isEmpty else { return }
        waiters.removeFirst().resume()
    }
}
