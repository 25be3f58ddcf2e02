import HearthCore

extension Firestore {
    /// Sends writes through the durable queue, as one commit, and resumes once the listener events its answer
    /// raised have run on the callback queue: an `async` write returns after the listeners heard of it, as a
    /// completion handler (queued behind them) would run.
    func commit(_ writes: [Write]) async throws {
        let failure: (any Error)?
        do {
            try await writeQueue.submit(writes)
            failure = nil
        } catch {
            failure = error
        }
        await callbacks.drain()
        if let failure { throw failure }
    }
}
