/// Who waits for the server's answer to which queued write (by queue position), for the write queues: a write's
/// answer may come before its caller waits (a flush already running), so such answers are kept until asked for — a
/// write a previous run queued has no waiter, and its answer stays, a few bytes.
struct WriteWaiters {
    private var waiters: [Int64: CheckedContinuation<Void, any Error>] = [:]
    private var early: [Int64: (any Error)?] = [:]

    /// The answer to `id` if it came before anyone waited (`.success` when acknowledged); it is handed out once.
    mutating func takeEarly(_ id: Int64) -> Result<Void, any Error>? {
        guard let answer = early.removeValue(forKey: id) else { return nil }
        if let answer { return .failure(answer) }
        return .success(())
    }

    /// Waits for `id`'s answer.
    mutating func add(_ id: Int64, _ continuation: CheckedContinuation<Void, any Error>) { waiters[id] = continuation }

    /// Answers `id`: resumes its waiter, or keeps the answer for a later ``takeEarly(_:)``.
    mutating func finish(_ id: Int64, with error: (any Error)?) {
        if let waiter = waiters.removeValue(forKey: id) {
            if let error { waiter.resume(throwing: error) } else { waiter.resume() }
        } else {
            early[id] = .some(error)
        }
    }

    /// Fails every waiter with `error` (the queue stops; the writes stay queued).
    mutating func failAll(_ error: any Error) {
        let pending = waiters
        waiters = [:]
        for waiter in pending.values { waiter.resume(throwing: error) }
    }
}
