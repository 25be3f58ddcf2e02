import Foundation
import HearthLog
import HearthSQLite
import Synchronization

/// Copies the write-ahead log back into the database file on its own thread and connection, so the writer
/// never stalls on the checkpoint's `fsync`s (SQLite's automatic checkpoint would run them inside a commit).
///
/// A passive checkpoint never lets the log start over while writes keep coming: SQLite rewinds the log only when a
/// write begins with every frame already copied, and under steady load the writer has always appended more by then,
/// so the file grew by the whole write volume (over a gibibyte in a minute of creates). When the log passes
/// `restartBytes`, the checkpointer catches up and asks the writer to rewind it (`onLargeLog`), which it does
/// between two group commits: commits wait while it copies the frames the checkpointer has not and syncs.
final class Checkpointer: Sendable {
    private let connection: SQLiteConnection
    private let interval: Duration
    /// The log size, in frames, past which `onLargeLog` is called.
    private let restartFrames: Int
    private let onLargeLog: @Sendable () -> Void
    private let stopping = Mutex(false)
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let logger: Logger

    init(
        path: String, interval: Duration, logger: Logger, restartBytes: Int,
        onLargeLog: @escaping @Sendable () -> Void
    ) throws {
        self.logger = logger
        var options = SQLiteConnection.Options()
        options.create = false
        connection = try SQLiteConnection(path: path, options: options)
        self.interval = interval
        self.onLargeLog = onLargeLog
        // A frame is a page and its 24-byte header.
        let pageSize = try connection.fetchOne("PRAGMA page_size")?.int(0) ?? 4096
        restartFrames = max(1, restartBytes / (pageSize + 24))
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

    /// Logs a failed checkpoint (a full disk, an I/O error) at most once a minute: it is retried every round, and the
    /// log grows meanwhile.
    private func report(_ outcome: SQLiteConnection.CheckpointOutcome, _ last: inout ContinuousClock.Instant?) {
        guard let failure = outcome.failure else { return }
        let now = ContinuousClock.now
        if let last, now - last < .seconds(60) { return }
        last = now
        logger.warning(
            "checkpoint failed; the write-ahead log keeps growing until it succeeds",
            ["sqliteCode": .int(Int(failure)), "logFrames": .int(outcome.logFrames)])
    }

    private func run() {
        var lastReport: ContinuousClock.Instant?
        let nanoseconds = interval.components.seconds * 1_000_000_000 + interval.components.attoseconds / 1_000_000_000
        while true {
            _ = wake.wait(timeout: .now() + .nanoseconds(Int(nanoseconds)))
            // PASSIVE never blocks the writer or readers; frames still in use wait for the next round.
            var outcome = connection.checkpoint(.passive)
            report(outcome, &lastReport)
            if outcome.logFrames >= restartFrames {
                // The writer can rewind the log only once every frame is in the database file and that file is
                // synced, and it cannot commit meanwhile; so catch up first, here, until a pass finds little new.
                // Passes that leave frames behind never sync the database file themselves, so each round syncs it:
                // the first sync is the large one (50-120 ms of pages measured under the create load), the later
                // ones only what the pass before copied.
                for _ in 0..<12 where !outcome.isComplete {
                    connection.syncDatabaseFile()
                    let before = outcome.checkpointedFrames
                    outcome = connection.checkpoint(.passive)
                    if outcome.checkpointedFrames - before < 512 { break }
                }
                onLargeLog()
            }
            if stopping.withLock({ $0 }) {
                connection.close()
                finished.signal()
                return
            }
        }
    }
}
