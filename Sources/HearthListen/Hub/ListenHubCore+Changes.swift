import HearthCore
import HearthStore

extension ListenHubCore {
    /// Applies one batch of committed changes (one group commit, or a page of the change log cut at a commit
    /// boundary) to every target, then sends each affected session its events and one consistency marker.
    /// Records at or before the current position are skipped, so the feed and a change-log catch-up may overlap.
    func apply(_ records: [ChangeRecord], now: Duration) {
        for record in records where record.sequence > sequence {
            process(record)
            advance(to: record)
        }
        flush(now: now)
    }

    /// Reads the change log from the current position until it is exhausted (after the hub fell behind the feed
    /// and dropped records). Returns `false` when the store failed; the caller retries later.
    func catchUp(now: Duration) -> Bool {
        statistics.catchUps += 1
        let pageSize = max(2, configuration.logPageSize)
        while true {
            let page: [ChangeRecord]
            do {
                page = try environment.reader.source.changes(after: sequence, limit: pageSize)
            } catch {
                return false
            }
            guard let last = page.last else { return true }
            var batch = page[...]
            if page.count == pageSize, let cut = page.lastIndex(where: { $0.commitTime != last.commitTime }) {
                // Keep the last commit whole for the next page: a marker must not fall inside a commit.
                batch = page[...cut]
            }
            apply(Array(batch), now: now)
            if page.count < pageSize { return true }
        }
    }

    /// Applies one change to every target: document targets of its path, and the query views the index names.
    private func process(_ record: ChangeRecord) {
        mark += 1
        let change = DecodedChange(record)
        var touched: [HubSession] = []
        var failures: [TargetKey: (HubTarget, HearthError)] = [:]
        var encoded: [ListenDocument] = []

        func note(_ target: HubTarget, _ path: ResourcePath, _ update: (inout HubSession.PendingEvent) -> Void) {
            if target.session.note(path, mark: mark, update) { touched.append(target.session) }
        }
        func allowed(_ document: StoredDocument, _ target: HubTarget) -> Bool {
            guard environment.authorizer.checksDocuments else { return true }
            do {
                try environment.authorizer.authorize(
                    document: document, database: target.session.database, target: target.spec,
                    caller: target.session.caller)
                return true
            } catch {
                failures[target.key] = (target, error)
                return false
            }
        }

        if let watchers = documentWatchers[record.path] {
            for target in watchers.values where target.lifecycle.receivesChanges {
                if let after = record.after {
                    guard allowed(after, target) else { continue }
                    note(target, record.path) {
                        $0.document = after
                        $0.changedIn.append(target.id)
                    }
                } else if record.before != nil {
                    note(target, record.path) { $0.deletedFrom.append(target.id) }
                }
            }
        }

        if !index.isEmpty {
            var candidates: [QueryView] = []
            index.forEachCandidate(of: change) { view in
                if view.mark != mark {
                    view.mark = mark
                    candidates.append(view)
                }
            }
            for view in candidates {
                let delta: ViewDelta
                do {
                    delta = try view.apply(change, sequence: record.sequence, reader: environment.reader)
                } catch {
                    for target in view.subscribers.values { failures[target.key] = (target, error.hearthError) }
                    continue
                }
                guard !delta.isEmpty else { continue }
                for target in view.subscribers.values where target.lifecycle.receivesChanges {
                    for document in delta.changed where allowed(document, target) {
                        note(target, document.path) {
                            $0.document = document
                            $0.changedIn.append(target.id)
                        }
                    }
                    for path in delta.removed { note(target, path) { $0.removedFrom.append(target.id) } }
                    for path in delta.deleted { note(target, path) { $0.deletedFrom.append(target.id) } }
                }
            }
        }

        for session in touched {
            for event in session.pending {
                // The common case (one target, nothing refused) allocates nothing here.
                func live(_ ids: [Int32]) -> [Int32] {
                    let kept =
                        failures.isEmpty
                        ? ids : ids.filter { failures[TargetKey(session: session.id, target: $0)] == nil }
                    return kept.count > 1 ? kept.sorted() : kept
                }
                let changedIn = live(event.changedIn)
                if let document = event.document, !changedIn.isEmpty {
                    // One encoding per document and database, shared by every session (usually one entry).
                    let listenDocument: ListenDocument
                    if let cached = encoded.first(where: { $0.path == event.path && $0.database == session.database }) {
                        listenDocument = cached
                    } else {
                        listenDocument = ListenDocument(document, database: session.database)
                        encoded.append(listenDocument)
                    }
                    enqueue(.documentChange(listenDocument, targetIDs: changedIn), on: session)
                }
                let name = { session.database.name(of: event.path) }
                let removedFrom = live(event.removedFrom)
                if !removedFrom.isEmpty {
                    enqueue(
                        .documentRemove(name: name(), removedTargetIDs: removedFrom, readTime: record.commitTime),
                        on: session)
                }
                let deletedFrom = live(event.deletedFrom)
                if !deletedFrom.isEmpty {
                    enqueue(
                        .documentDelete(name: name(), removedTargetIDs: deletedFrom, readTime: record.commitTime),
                        on: session)
                }
            }
            session.pending.removeAll(keepingCapacity: true)
        }
        for (target, error) in failures.values { perform(target, target.lifecycle.failed(error)) }
    }
}
