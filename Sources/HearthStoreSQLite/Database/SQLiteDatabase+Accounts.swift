import Foundation
import HearthCore
package import HearthSQLite
import Synchronization

/// The accounts' road to the database when a server runs: their schema and every account write go to the one writer
/// as typed jobs, and their reads to the pooled readers, so the process keeps a single writer connection.
extension SQLiteDatabase {
    /// Brings a component's schema up to date on the writer connection, between two group commits, and waits.
    package func migrate(component: String, migrations: [(version: Int, sql: String)]) throws {
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<Void, any Error>?>(nil)
        submit(
            .migrate(component: component, migrations: migrations) { result in
                outcome.withLock { $0 = result }
                done.signal()
            })
        done.wait()
        try outcome.withLock { $0 }?.get()
    }

    /// Runs `body` on the writer, in its own savepoint of a group commit, and waits until that group committed (or
    /// failed); an error `body` throws rolls its savepoint back and is rethrown unchanged. It blocks the calling thread,
    /// so it belongs on worker threads, never on the writer's (a job's body or completion would wait on itself).
    package func writeAndWait<T: Sendable>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try withoutActuallyEscaping(body) { body in
            // The body runs on the writer while this thread waits for it; the job may outlive the wait (the writer
            // drops its groups later), so it reaches the body only through `lent`, revoked before the body is gone.
            let lent = Lent(body)
            defer { lent.revoke() }
            let value = Mutex<T?>(nil)
            let outcome = Mutex<Result<Void, any Error>?>(nil)
            let done = DispatchSemaphore(value: 0)
            submit(
                .accounts(
                    { db in
                        let result = try lent.run(db)
                        value.withLock { $0 = result }
                    },
                    { result in
                        outcome.withLock { $0 = result }
                        done.signal()
                    }))
            done.wait()
            try outcome.withLock { $0 }?.get()
            guard let result = value.withLock({ $0 }) else {
                throw HearthError.internal("The account write produced no value.")
            }
            return result
        }
    }

    /// Runs `body` on a pooled read connection (the latest committed snapshot); its errors pass through.
    package func readConnection<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try readers.withConnection(body)
    }
}

/// A closure handed to the writer thread while its caller waits for it (see `SQLiteDatabase.writeAndWait`); the
/// caller revokes it before returning, so nothing keeps the closure once its scope ends.
private final class Lent<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var body: ((SQLiteConnection) throws -> T)?

    init(_ body: @escaping (SQLiteConnection) throws -> T) {
        self.body = body
    }

    /// Runs the closure; `nil` once revoked.
    func run(_ db: SQLiteConnection) throws -> T? {
        lock.lock()
        defer { lock.unlock() }
        return try body?(db)
    }

    /// Drops the closure.
    func revoke() {
        lock.lock()
        body = nil
        lock.unlock()
    }
}
