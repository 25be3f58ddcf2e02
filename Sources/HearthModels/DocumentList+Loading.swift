public import Hearth

extension DocumentList {
    /// Reads the loaded pages once, updates the list and returns the step. While listening, returns the live list.
    @discardableResult
    public func get(source: FirestoreSource = .default) async throws -> Snapshot {
        let (query, generation, current) = state.withLock { state in
            (Self.pagedQuery(state), state.generation, state.listening && state.loaded ? state.entries : nil)
        }
        if let current {
            let list = current.map(\.element)
            return Snapshot(before: list, after: list, changes: .none)
        }
        let results = try await query.getDocuments(source: source)
        let entries = await entries(for: results.documents)
        return publish(entries, resultCount: results.count, fromServer: true, generation: generation)
            ?? Snapshot(before: documents, after: documents, changes: .none)
    }

    /// Starts listening: the handlers and ``snapshots`` get the first results and every change until ``stop()``.
    @discardableResult
    public func listen() -> DocumentList {
        if !isListening { startListener() }
        return self
    }

    /// Loads one more page (with ``limit(_:)``) and returns once it is in the list; while listening, the listener
    /// is widened to cover it. Returns ``hasMore``; without a page size there is nothing more to load. Offline it
    /// returns when the cache fills the page, or else when the server answers.
    @discardableResult
    public func next() async throws -> Bool {
        let listening = state.withLock { state -> Bool? in
            guard state.pageSize != nil else { return nil }
            state.pages += 1
            return state.listening
        }
        switch listening {
        case nil: return false
        case true?: try await firstResults(of: startListener())
        case false?: try await get()
        }
        return hasMore
    }

    /// Stops the listener and ends every ``snapshots`` sequence; the list keeps its last contents.
    public func stop() { end(nil, generation: nil) }

    /// Replaces any running listener with one on the loaded pages; returns its generation.
    @discardableResult
    func startListener() -> Int {
        let (query, generation, previous) = state.withLock { state in
            let previous = state.newGeneration(listening: true)
            return (Self.pagedQuery(state), state.generation, previous)
        }
        previous.registration?.remove()
        previous.pump?.cancel()
        let (events, continuation) = AsyncStream<Result<QuerySnapshot, any Error>>.makeStream()
        // With metadata changes, the server's answer arrives even when it equals the cache's first answer, so next()
        // can wait for it.
        let registration = query.addSnapshotListener(includeMetadataChanges: true) { snapshot, error in
            if let snapshot {
                continuation.yield(.success(snapshot))
            } else {
                continuation.yield(.failure(error ?? CancellationError()))
                continuation.finish()
            }
        }
        // One consumer per listener keeps its snapshots in order even when `retrieve` suspends.
        let pump = Task { [weak self] in
            for await event in events {
                guard let self, !Task.isCancelled else { return }
                switch event {
                case .success(let results):
                    let entries = await self.entries(for: results.documents)
                    self.publish(
                        entries, resultCount: results.count, fromServer: !results.metadata.isFromCache,
                        generation: generation)
                case .failure(let error):
                    self.end(error, generation: generation)
                }
            }
        }
        let stale = state.withLock { state in
            guard state.generation == generation else { return true }
            state.registration = registration
            state.pump = pump
            return false
        }
        if stale {
            registration.remove()
            pump.cancel()
        }
        continuation.onTermination = { _ in registration.remove() }
        return generation
    }

    /// Waits until the listener of `generation` has delivered its first results.
    func firstResults(of generation: Int) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let ready: Bool? = state.withLock { state in
                if state.loadedGeneration >= generation { return true }
                if state.generation != generation { return nil }
                state.waiters.append((generation, continuation))
                return false
            }
            switch ready {
            case true?: continuation.resume()
            case nil: continuation.resume(throwing: CancellationError())
            case false?: break
            }
        }
    }

    /// Elements for `results`, reusing the previous element of every unchanged document.
    func entries(for results: [QueryDocumentSnapshot]) async -> [Entry] {
        let (previous, retrieve) = state.withLock { state in
            (
                Dictionary(state.entries.map { ($0.element.id, $0) }, uniquingKeysWith: { first, _ in first }),
                state.retrieve
            )
        }
        var entries: [Entry] = []
        entries.reserveCapacity(results.count)
        for result in results {
            let fingerprint = Fingerprint(result)
            if let old = previous[result.reference.path], old.fingerprint == fingerprint {
                entries.append(old)
                continue
            }
            do {
                let element: Element?
                if let retrieve {
                    element = try await retrieve(result)
                } else {
                    element = try Document(snapshot: result, decoder: decoder)
                }
                if let element { entries.append(Entry(element: element, fingerprint: fingerprint)) }
            } catch {
                report(error)
            }
        }
        return entries
    }

    /// Makes `entries` the list if `generation` is still current, and tells every handler and sequence. The
    /// generation counts as loaded (``next()`` returns) once the server answered or the results fill the pages.
    @discardableResult
    func publish(_ entries: [Entry], resultCount: Int, fromServer: Bool, generation: Int) -> Snapshot? {
        let outcome = state.withLock {
            state -> (
                Snapshot, [@Sendable (Snapshot) -> Void], [AsyncThrowingStream<Snapshot, any Error>.Continuation],
                [CheckedContinuation<Void, any Error>], Bool
            )? in
            guard state.generation == generation else { return nil }
            let before = state.entries
            let changes = ListChanges.between(before, entries, key: \.element.id, version: \.fingerprint)
            let first = !state.loaded
            state.entries = entries
            state.loaded = true
            let limit = state.pageSize.map { $0 * state.pages }
            state.hasMore = limit.map { resultCount >= $0 } ?? false
            var waiters: [CheckedContinuation<Void, any Error>] = []
            if fromServer || state.hasMore {
                state.loadedGeneration = generation
                waiters = state.waiters.filter { $0.generation <= generation }.map(\.continuation)
                state.waiters.removeAll { $0.generation <= generation }
            }
            let snapshot = Snapshot(
                before: before.map(\.element), after: entries.map(\.element), changes: changes)
            return (snapshot, state.changeHandlers, Array(state.streams.values), waiters, first || !changes.isEmpty)
        }
        guard let (snapshot, handlers, streams, waiters, announce) = outcome else { return nil }
        if announce {
            for handler in handlers { handler(snapshot) }
            for stream in streams { stream.yield(snapshot) }
        }
        for waiter in waiters { waiter.resume() }
        return snapshot
    }

    /// Ends the listener (of `generation` only, when given): sequences finish (with `error`, if any), ``next()``
    /// waiters resume, handlers hear of the error.
    func end(_ error: (any Error)?, generation: Int?) {
        let outcome = state.withLock {
            state -> (
                State.Listener, [AsyncThrowingStream<Snapshot, any Error>.Continuation],
                [CheckedContinuation<Void, any Error>]
            )? in
            if let generation, state.generation != generation { return nil }
            defer {
                state.streams = [:]
                state.waiters = []
            }
            return (
                state.newGeneration(listening: false), Array(state.streams.values), state.waiters.map(\.continuation)
            )
        }
        guard let (listener, streams, waiters) = outcome else { return }
        listener.registration?.remove()
        listener.pump?.cancel()
        if let error { report(error) }
        for stream in streams { stream.finish(throwing: error) }
        for waiter in waiters { waiter.resume(throwing: error ?? CancellationError()) }
    }

    private func report(_ error: any Error) {
        for handler in state.withLock({ $0.errorHandlers }) { handler(error) }
    }
}
