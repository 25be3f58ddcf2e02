import Foundation
import HearthCore

/// The one `documents:listen` stream of a `Firestore` instance: opens it when the first listener arrives, adds and
/// removes targets by POST, applies the stream's messages to each target, raises snapshots at consistency markers, and
/// reconnects with backoff, re-adding every target with its resume token (docs/realtime.md).
///
/// It is also where latency compensation meets the stream: every snapshot is the server's results (or, before the
/// server answered, the cache's) with the local commits applied over them — queued ones (`hasPendingWrites`) and
/// acknowledged ones until a marker shows the server's copy holds them.
actor ListenConnection {
    private let client: DocumentsClient
    private let cache: LocalDocumentCache
    private var targets: [Int: ListenTarget] = [:]
    private var nextID = 1
    private var session: String?
    private var streamTask: Task<Void, Never>?
    /// Which stream is the current one. A stream ended by ``remove(_:)`` may still deliver events and finish after a
    /// new one opened (cancellation reaches its connection late): its events, and its clean-up, must not touch the
    /// new stream's session or targets.
    private var streamGeneration = 0
    /// `addTarget` requests that did not get through since the last one that did: the backoff of the restarts
    /// they cause.
    private var addFailures = 0
    /// Commits the server acknowledged that a marker has not yet shown in every target.
    private var acknowledged: [LocalCommit] = []
    /// The last attempt to reach the stream failed: snapshots come from the cache at once.
    private var offline = false
    /// The documents the commit being sent writes.
    private var inFlight: Set<ResourcePath> = []

    init(client: DocumentsClient, cache: LocalDocumentCache) {
        self.client = client
        self.cache = cache
    }

    /// Starts watching; returns the target ID for ``remove(_:)``. While the client is offline (or a local write
    /// touches the target) the listener gets the cache's results at once, marked `isFromCache`.
    func add(
        _ kind: ListenKind, includeMetadataChanges: Bool, deliver: @escaping @Sendable (ListenEvent) -> Void
    ) -> Int {
        let id = nextID
        nextID += 1
        targets[id] = ListenTarget(kind: kind, includeMetadataChanges: includeMetadataChanges, deliver: deliver)
        raise([id], commits: cache.localCommits())
        if let session {
            Task { await self.post(add: id, session: session) }
        } else if streamTask == nil {
            openStream()
        }
        return id
    }

    /// Stops watching; closes the stream when no target is left.
    func remove(_ id: Int) {
        guard targets.removeValue(forKey: id) != nil else { return }
        if targets.isEmpty {
            closeStream()
            acknowledged = []
        } else if let session {
            let client = self.client
            Task {
                _ = try? await client.send(
                    "POST", path: .root, suffix: ":listen", query: [("session", session)],
                    body: ["removeTarget": .integer(Int64(id))])
            }
        }
    }

    /// Ends the stream and forgets every target (``Firestore/terminate()``); their listeners get no further calls.
    func terminate() {
        targets = [:]
        closeStream()
        acknowledged = []
    }

    private func openStream(after delay: Duration = .zero) {
        streamGeneration += 1
        let generation = streamGeneration
        streamTask = Task {
            if delay > .zero { try? await Task.sleep(for: delay) }
            await self.run(generation)
        }
    }

    /// Cancels the current stream and makes whatever it still delivers stale.
    private func closeStream() {
        streamGeneration += 1
        streamTask?.cancel()
        streamTask = nil
        session = nil
    }

    /// Keeps stream `generation` open while there are targets, reconnecting with capped exponential backoff.
    private func run(_ generation: Int) async {
        var failures = 0
        while !Task.isCancelled && !targets.isEmpty && generation == streamGeneration {
            do {
                try await readStream(generation)
                failures = 0
            } catch {
                failures += 1
            }
            guard generation == streamGeneration else { return }
            session = nil
            guard !Task.isCancelled, !targets.isEmpty else { break }
            offline = true
            for id in targets.keys { targets[id]?.disconnect() }
            raise(Array(targets.keys), commits: cache.localCommits())
            try? await Task.sleep(for: Self.backoff(after: failures))
        }
    }

    /// Capped exponential backoff: 200 ms after the first failure, up to 5 s.
    private static func backoff(after failures: Int) -> Duration {
        .milliseconds(min(5_000, 100 << min(failures, 6)))
    }

    /// An `addTarget` did not get through (the request failed on the way, or the server was unavailable), so the
    /// session may or may not hold the target: as after a broken stream, a new stream is opened after a backoff and
    /// every target re-added with its resume token. Firebase's SDKs likewise retry a listen on such failures and
    /// never report them to the listener.
    private func restartStream() {
        addFailures += 1
        closeStream()
        for id in targets.keys { targets[id]?.disconnect() }
        raise(Array(targets.keys), commits: cache.localCommits())
        openStream(after: Self.backoff(after: addFailures))
    }

    private func readStream(_ generation: Int) async throws {
        var text = client.app.serverURL.absoluteString.trimmingSuffix("/") + "/v1/" + client.database.documentsRoot
        text += ":listen"
        guard let url = URL(string: text) else { return }
        var headers = ["Accept": "text/event-stream"]
        if let token = try await client.app.auth.idTokenForRequest() { headers["Authorization"] = "Bearer \(token)" }
        let stream = try await client.app.transport.stream(TransportRequest(method: "GET", url: url, headers: headers))
        var parser = SSEParser()
        for try await chunk in stream {
            for event in parser.feed(chunk) {
                guard generation == streamGeneration else { return }
                await handle(event)
            }
        }
    }

    private func handle(_ event: ServerSentEvent) async {
        guard let json = try? JSONParser.parse(event.data) else { return }
        if event.event == "session" {
            guard let id = json["session"]?.stringValue else { return }
            session = id
            offline = false
            for targetID in targets.keys.sorted() {
                guard session == id else { return }  // a failed add restarted the stream
                await post(add: targetID, session: id)
            }
            return
        }
        apply(json)
    }

    /// Sends `addTarget` for a target (with its resume token after a reconnect); a refusal fails that listener.
    private func post(add id: Int, session: String) async {
        guard let target = targets[id] else { return }
        var add: [String: JSONValue] = ["targetId": .integer(Int64(id))]
        switch target.kind {
        case .document(let path): add["documents"] = ["documents": [.string(client.database.name(of: path))]]
        case .query(let query, _):
            add["query"] = [
                "parent": .string(client.database.name(of: query.parent)),
                "structuredQuery": query.firestoreJSON(database: client.database),
            ]
        }
        if let token = target.resumeToken { add["resumeToken"] = .string(token) }
        do throws(FirestoreErrorCode) {
            _ = try await client.send(
                "POST", path: .root, suffix: ":listen", query: [("session", session)], body: ["addTarget": .object(add)]
            )
            addFailures = 0
        } catch {
            if error.code == .notFound { return }  // the session ended; the reconnect re-adds the target
            if error.isTransient {
                // Only while the session is still the current one: a newer stream re-adds the target itself.
                if self.session == session, targets[id] != nil { restartStream() }
                return
            }
            fail(id, error)
        }
    }

    private func fail(_ id: Int, _ error: FirestoreErrorCode) {
        guard let target = targets.removeValue(forKey: id) else { return }
        target.deliver(.failed(error))
    }

    private func ids(_ json: JSONValue?) -> [Int] {
        (json?.arrayValue ?? []).compactMap { $0.int64Value.map(Int.init) }
    }

    private func apply(_ json: JSONValue) {
        if let change = json["targetChange"] {
            var ids = ids(change["targetIds"])
            let type = change["targetChangeType"]?.stringValue ?? "NO_CHANGE"
            let token = change["resumeToken"]?.stringValue
            let everyTarget = ids.isEmpty
            if everyTarget { ids = Array(targets.keys) }
            switch type {
            case "RESET":
                for id in ids {
                    targets[id]?.staged = [:]
                    targets[id]?.reset = true
                }
            case "CURRENT":
                for id in ids {
                    targets[id]?.pendingCurrent = true
                    if let token { targets[id]?.resumeToken = token }
                }
            case "REMOVE":
                if let cause = change["cause"] {
                    let code = cause["status"]?.stringValue.flatMap(ErrorCode.init(name:))
                    // The server ends a session whose credential expired or was revoked, and its stream next: the
                    // reconnect signs in afresh and re-adds the target with its resume token (Firebase's SDKs retry
                    // a listen refused as UNAUTHENTICATED the same way). A refused sign-in fails it there.
                    if code == .unauthenticated { break }
                    let error = FirestoreErrorCode(
                        FirestoreErrorCode.Code(rawValue: code?.rawValue ?? 2) ?? .unknown,
                        cause["message"]?.stringValue ?? "The listener was removed.")
                    for id in ids { fail(id, error) }
                }
            case "NO_CHANGE":
                for id in ids {
                    if let token { targets[id]?.resumeToken = token }
                    if let staged = targets[id]?.staged.keys, staged.contains(where: inFlight.contains) {
                        targets[id]?.awaitingAnswer = true
                    }
                    targets[id]?.commitStaged()
                }
                if everyTarget,
                    let readTime = change["readTime"]?.stringValue.flatMap(HearthCore.Timestamp.init(rfc3339:)),
                    targets.values.allSatisfy(\.current)
                {
                    let before = acknowledged.count
                    acknowledged.removeAll { ($0.commitTime.map { $0 <= readTime }) ?? false }
                    if acknowledged.count != before { markAllDirty() }
                }
                raise(ids.filter { targets[$0]?.dirty == true }, commits: cache.localCommits())
            default:
                break
            }
        } else if let change = json["documentChange"], let document = change["document"],
            let stored = try? client.document(document)
        {
            cache.put(stored)
            for id in ids(change["targetIds"]) { targets[id]?.staged[stored.path] = .some(stored) }
            for id in ids(change["removedTargetIds"]) { targets[id]?.staged[stored.path] = .some(nil) }
        } else if let change = json["documentDelete"] ?? json["documentRemove"],
            let name = change["document"]?.stringValue, let path = try? client.database.path(fromName: name)
        {
            if json["documentDelete"] != nil { cache.remove(path) }
            var ids = ids(change["removedTargetIds"])
            if ids.isEmpty { ids = Array(targets.keys) }
            for id in ids { targets[id]?.staged[path] = .some(nil) }
        }
    }

    // MARK: Latency compensation

    /// The queued writes changed (a new write, or one the server refused): every listener sees it at once.
    func localWritesChanged() {
        markAllDirty()
        raise(Array(targets.keys), commits: cache.localCommits())
    }

    /// The oldest queued commit is being sent; it writes `paths`.
    func sending(_ paths: Set<ResourcePath>) { inFlight = paths }

    /// The server acknowledged `commit`: `dequeue` takes it out of the durable queue here, so no snapshot falls
    /// between the queue and the acknowledged list; listeners see it without `hasPendingWrites`, and keep seeing it
    /// until a marker shows the server's copy of the documents.
    func acknowledged(_ commit: LocalCommit, dequeue: @Sendable () -> Void) {
        dequeue()
        if !targets.isEmpty { acknowledged.append(commit) }
        sendEnded()
    }

    /// The commit in flight got no answer (it stays queued) or was refused (`dequeue` takes it out of the queue).
    func sendEnded(dequeue: @Sendable () -> Void = {}) {
        dequeue()
        inFlight = []
        for id in targets.keys { targets[id]?.awaitingAnswer = false }
        localWritesChanged()
    }

    private func markAllDirty() {
        for id in targets.keys { targets[id]?.dirty = true }
    }

    /// Computes each target's view and hands it to its listener when there is something to see. A target nobody
    /// has seen yet is raised from the cache only when the server is out of reach or a local write touches it;
    /// otherwise its first snapshot is the server's (Firebase would show cached results first — code that widens a
    /// listener and waits for its first snapshot relies on this one being complete).
    private func raise(_ ids: [Int], commits queued: [LocalCommit]) {
        let commits = acknowledged + queued
        for id in ids.sorted() {
            guard let target = targets[id], !target.awaitingAnswer else { continue }
            let (documents, pending) = view(of: target, commits: commits)
            if target.emitted == nil && !target.current && !offline && pending.isEmpty {
                continue
            }
            if let event = targets[id]?.raise(documents, pending: pending, fromCache: !target.current) {
                target.deliver(event)
            }
        }
    }

    /// A target's results with the local commits applied: over the server's results once it has them, over the
    /// cache before.
    private func view(
        of target: ListenTarget, commits: [LocalCommit]
    ) -> (documents: [StoredDocument], pending: Set<ResourcePath>) {
        switch target.kind {
        case .document(let path):
            let base = target.synced ? target.documents[path] : cache.get(path)
            let (document, pending) = LocalView.overlay(path, on: base, commits: commits)
            return (document.map { [$0] } ?? [], pending ? [path] : [])
        case .query(let query, let reverse):
            var (documents, pending) = LocalView.results(
                of: query, base: target.synced ? target.documents : cache.candidates(for: query),
                trusted: target.synced, lookup: cache.get, commits: commits)
            if reverse { documents.reverse() }
            return (documents, pending)
        }
    }
}
