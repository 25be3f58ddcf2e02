import Dispatch

/// A small pool of connections to one database: at most `capacity` open at once, callers beyond that wait their
/// turn in arrival order. A connection that broke is dropped rather than handed out again. Each connection's
/// blocking libpq calls run on a serial queue of its own, never on Swift's cooperative threads, which a blocked
/// caller would otherwise hold from every other task.
public actor PostgresPool {
    /// A connection with the queue its calls run on.
    private struct Slot: Sendable {
        let connection: PostgresConnection
        let queue: DispatchQueue
    }

    private let conninfo: String
    private let capacity: Int
    private var idle: [Slot] = []
    private var open = 0
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Makes a pool; connections open lazily on first use.
    public init(conninfo: String, capacity: Int = 4) {
        self.conninfo = conninfo
        self.capacity = max(1, capacity)
    }

    /// Runs `body` with a connection of its own, on that connection's queue, so callers up to the capacity run at
    /// once.
    public nonisolated func withConnection<T: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) throws -> T
    ) async throws -> T {
        let slot: Slot
        if let reused = await checkOut() {
            slot = reused
        } else {
            let queue = DispatchQueue(label: "hearth.postgres.connection")
            do {
                let conninfo = conninfo
                slot = Slot(
                    connection: try await Self.run(on: queue) { try PostgresConnection(conninfo: conninfo) },
                    queue: queue)
            } catch {
                await failedToOpen()
                throw error
            }
        }
        let connection = slot.connection
        let result = try await Self.run(on: slot.queue) { () -> Result<T, any Error> in Result { try body(connection) }
        }
        await checkIn(slot)
        return try result.get()
    }

    private static func run<T: Sendable>(
        on queue: DispatchQueue, _ work: @escaping @Sendable () throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// An idle connection, or `nil` once the caller may open one (its place counted); waits while all are taken.
    private func checkOut() async -> Slot? {
        while true {
            if let slot = idle.popLast() { return slot }
            if open < capacity {
                open += 1
                return nil
            }
            await withCheckedContinuation { waiters.append($0) }
        }
    }

    private func failedToOpen() {
        open -= 1
        wakeOne()
    }

    private func checkIn(_ slot: Slot) {
        if slot.connection.isHealthy {
            idle.append(slot)
        } else {
            slot.connection.close()
            open -= 1
        }
        wakeOne()
    }

    private func wakeOne() {
        guard !waiters.isEmpty else { return }
        waiters.removeFirst().resume()
    }
}
