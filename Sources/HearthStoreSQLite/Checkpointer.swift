import Foundation
import HearthSQLite
import Synchronization

/// Copies the write-ahead log back into the database file on its own thread and connection, so the writer
/// never stalls on the checkpoint's `fsync`s (SQLite's automatic checkpoint would run them inside a commit).
final class Checkpointer: Sendable {
    private let connection: SQLiteConnection
    private let interval: Duration
    private let stopping = Mutex(false)
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    init(path: String, interval: Duration) throws {
        var options = SQLiteConnection.Options()
        options.create = false
        connection = try SQLiteConnection(path: path, options: options)
        self.interval = interval
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "hearth-checkpoint"
        thread.start()
    }

    /// Stops the thread after a final passive checkpoint. Idempotent.
    func stop() {
        let first = stopping.withLock { stopping in
            defer { stopping = true }
            return !stopping
        }
        guard first else { return }
        wake.signal()
        finished.wait()
    }

    private func run() {
        let nanoseconds = interval.components.seconds * 1_000_000_000 + interval.components.attoseconds / 1_000_000_000
        while true {
            _ = wake.wait(timeout: .now() + .nanoseconds(Int(nanoseconds)))
            // PASSIVE never blocks the writer or readers; frames still in use wait for the next round.
            _ = connection.checkpoint(truncate: false)
            if stopping.withLock({ $0 }) {
                connection.close()
                finished.signal()
                return
            }
        }
    }
}
