import HearthCore
import HearthStore

extension ListenHubCore {
    /// Carries out a request the session registry has already checked (owner, target IDs, limits).
    func handle(_ request: ListenRequest, session id: String, now: Duration) {
        guard let session = sessions[id] else { return }
        switch request {
        case .addTarget(let spec):
            add(spec, to: session)
        case .removeTarget(let targetID):
            guard let target = session.targets[targetID] else { return }
            target.removedByClient = true
            perform(target, target.lifecycle.removeRequested())
        }
        flush(now: now)
    }

    /// Adds a target: checks it, reads its results at the current position, queues `ADD` … `CURRENT`.
    func add(_ spec: ListenTarget, to session: HubSession) {
        guard session.targets[spec.id] == nil else { return }
        let target = HubTarget(spec: spec, session: session)
        do throws(HearthError) {
            try environment.authorizer.authorize(target: spec, database: session.database, caller: session.caller)
            let snapshot = try load(target)
            if snapshot.byteCount > configuration.maxSnapshotBytes {
                throw HearthError(
                    .resourceExhausted,
                    "The target's results (\(snapshot.byteCount) bytes) exceed what one stream may queue at once (\(configuration.maxSnapshotBytes)); narrow the query or add a limit."
                )
            }
            register(target)
            perform(
                target, target.lifecycle.loaded(snapshot, token: ResumeToken(sequence: sequence), readTime: readTime))
        } catch {
            perform(target, target.lifecycle.failed(error))
        }
    }

    /// Carries out a target's lifecycle actions.
    func perform(_ target: HubTarget, _ actions: [TargetLifecycle.Action]) {
        for action in actions {
            switch action {
            case .send(let response):
                if target.session.isOpen { enqueue(response, on: target.session) }
            case .unregister:
                unregister(target)
            }
        }
    }

    private func register(_ target: HubTarget) {
        target.session.targets[target.id] = target
        statistics.targets += 1
        switch target.spec.kind {
        case .documents(let paths):
            for path in paths { documentWatchers[path, default: [:]][target.key] = target }
        case .query:
            guard let view = target.view else { return }
            if views[view.key] == nil {
                views[view.key] = view
                index.insert(view, plan: view.plan)
            }
            view.subscribers[target.key] = target
        }
    }

    private func unregister(_ target: HubTarget) {
        guard target.session.targets[target.id] === target else {
            // Never registered (refused on add): only its ID needs freeing.
            if target.session.targets[target.id] == nil { releaseID(of: target) }
            return
        }
        target.session.targets[target.id] = nil
        statistics.targets -= 1
        switch target.spec.kind {
        case .documents(let paths):
            for path in paths {
                documentWatchers[path]?[target.key] = nil
                if documentWatchers[path]?.isEmpty == true { documentWatchers[path] = nil }
            }
        case .query:
            if let view = target.view {
                view.subscribers[target.key] = nil
                if view.subscribers.isEmpty, views[view.key] === view {
                    views[view.key] = nil
                    index.remove(view, plan: view.plan)
                }
            }
        }
        releaseID(of: target)
    }

    /// Lets the session registry accept the target's ID again, unless the client's own removal did already (a
    /// later add with the same ID may be on its way) or the session is gone.
    private func releaseID(of target: HubTarget) {
        guard !target.removedByClient, target.session.isOpen else { return }
        environment.targetRemoved(target.key)
    }

    /// Reads a new target's results at the current position: all of them, or — with a resume token the change log
    /// still covers — only what changed since; a token it does not cover gets a reset.
    private func load(_ target: HubTarget) throws(HearthError) -> TargetLifecycle.Snapshot {
        var resumeFrom = target.spec.resumeToken?.sequence
        if let from = resumeFrom, from > sequence || sequence - from > configuration.maxResumeRecords {
            resumeFrom = nil
        }
        let reset = target.spec.resumeToken != nil && resumeFrom == nil
        do {
            return try load(target, resumeFrom: resumeFrom, reset: reset)
        } catch {
            switch error {
            case .notCovered:
                return try rethrowing { () throws(SnapshotFailure) in try load(target, resumeFrom: nil, reset: true) }
            case .store(let cause): throw cause
            }
        }
    }

    private func rethrowing<T>(_ body: () throws(SnapshotFailure) -> T) throws(HearthError) -> T {
        do {
            return try body()
        } catch {
            throw error.hearthError
        }
    }

    private func load(
        _ target: HubTarget, resumeFrom: Int64?, reset: Bool
    ) throws(SnapshotFailure) -> TargetLifecycle.Snapshot {
        let bases = resumeFrom.map { [$0, sequence] } ?? [sequence]
        let reader = environment.reader
        let covered = resumeFrom != nil
        let old: [MatchedDocument]?
        let new: [MatchedDocument]
        var existence: [ResourcePath: Bool] = [:]
        switch target.spec.kind {
        case .documents(let paths):
            let states = try reader.documents(
                paths, at: bases, requireCoverage: covered, maxRecords: configuration.maxResumeRecords)
            old = covered ? states[0].documents : nil
            new = states[states.count - 1].documents
            existence = states[states.count - 1].existence
        case .query(let query):
            let key = ViewKey(query: query, database: target.session.database)
            let view = views[key] ?? QueryView(key: key)
            target.view = view
            if let window = view.window, views[key] != nil, !covered {
                // A live window already holds the results at this position: no read needed.
                old = nil
                new = Array(window.visible)
            } else {
                let states = try reader.query(
                    key.query, capacity: view.window?.capacity, at: bases, requireCoverage: covered,
                    maxRecords: configuration.maxResumeRecords)
                let current = states[states.count - 1]
                if views[key] == nil, view.window != nil {
                    view.window!.replace(with: current.documents, exhaustive: current.exhaustive)
                }
                let limit = key.query.limit ?? Int.max
                old = covered ? Array(states[0].documents.prefix(limit)) : nil
                new = view.window.map { Array($0.visible) } ?? current.documents
                existence = current.existence
            }
        }
        let session = target.session
        guard let old else {
            let documents = try authorized(new.map(\.document), for: target)
            return reset ? .reset(documents) : .fresh(documents)
        }
        let delta = ViewDelta.between(
            old.map { VisibleEntry(path: $0.path, updateTime: $0.document.updateTime) }, new,
            isDeleted: { existence[$0] == false })
        return .resumed(
            changed: try authorized(delta.changed, for: target), removed: delta.removed.map(session.database.name(of:)),
            deleted: delta.deleted.map(session.database.name(of:)), count: new.count)
    }

    /// Encodes documents for a target's session, after the rules allowed each.
    private func authorized(
        _ documents: [StoredDocument], for target: HubTarget
    ) throws(SnapshotFailure) -> [ListenDocument] {
        let session = target.session
        if environment.authorizer.checksDocuments {
            for document in documents {
                do {
                    try environment.authorizer.authorize(
                        document: document, database: session.database, target: target.spec, caller: session.caller)
                } catch {
                    throw .store(error)
                }
            }
        }
        return documents.map { ListenDocument($0, database: session.database) }
    }
}
