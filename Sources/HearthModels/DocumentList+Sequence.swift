extension DocumentList {
    /// The list's steps as an `AsyncSequence`: the current list first (as insertions into an empty one) when it is
    /// already loaded, then every change. It ends at ``stop()``, and with the error when the listener fails; ending
    /// the iteration unsubscribes. Call ``listen()`` (or ``get(source:)``) to produce steps.
    public var snapshots: AsyncThrowingStream<Snapshot, any Error> {
        let (stream, continuation) = AsyncThrowingStream<Snapshot, any Error>.makeStream()
        let id = state.withLock { state in
            let id = state.nextStream
            state.nextStream += 1
            state.streams[id] = continuation
            // Under the lock, so no later step can overtake it.
            if state.loaded {
                let current = state.entries.map(\.element)
                continuation.yield(
                    Snapshot(
                        before: [], after: current,
                        changes: ListChanges(insertions: Array(current.indices), modifications: [], deletions: [])))
            }
            return id
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.streams.removeValue(forKey: id) }
        }
        return stream
    }
}
