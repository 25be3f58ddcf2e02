import HearthCore
import HearthStore

/// The listener hub's state and logic, without threads: sessions, targets, shared query views, the matching
/// index, and the change-log position every target has reached. ``ListenHub`` owns one and calls it from a single
/// thread; tests drive one directly with a fake store, fake sinks and explicit times.
///
/// Every target is always at the same position (``sequence``): a target is added by reading its results *at* that
/// position (``SnapshotReader``), and each change is applied to all targets before the next. So one consistency
/// marker (a `NO_CHANGE` target change with no target IDs) after each batch is a valid resume token for every
/// target of the session.
final class ListenHubCore {
    /// What the core needs from outside.
    struct Environment {
        let reader: SnapshotReader
        let configuration: ListenConfiguration
        let authorizer: any ListenAuthorizer
        /// Called when the hub ends a session itself (cut off, failed send), so its ID stops being accepted.
        let sessionEnded: (String) -> Void
        /// Called when a target is gone, so its ID may be used again.
        let targetRemoved: (TargetKey) -> Void
    }

    let environment: Environment
    /// Every target reflects every change up to here.
    private(set) var sequence: Int64
    /// The commit time of that position.
    private(set) var readTime: Timestamp
    var sessions: [String: HubSession] = [:]
    var documentWatchers: [ResourcePath: [TargetKey: HubTarget]] = [:]
    var views: [ViewKey: QueryView] = [:]
    var index = TargetIndex<QueryView>()
    /// Counts changes processed; marks views and sessions visited during one change.
    var mark = 0
    /// Sessions with queued responses.
    private var dirty: [HubSession] = []
    var statistics = ListenStatistics()

    init(environment: Environment, sequence: Int64, readTime: Timestamp) {
        self.environment = environment
        self.sequence = sequence
        self.readTime = readTime
        statistics.sequence = sequence
    }

    var configuration: ListenConfiguration { environment.configuration }

    // MARK: Sessions

    func open(
        session id: String, database: DatabaseName, caller: ListenCaller, sink: any ListenSink,
        credentialStillValid: (@Sendable () -> Bool)? = nil, now: Duration
    ) {
        guard sessions[id] == nil else { return }
        sessions[id] = HubSession(
            id: id, database: database, caller: caller, sink: sink, credentialStillValid: credentialStillValid,
            now: now, sequence: sequence)
    }

    /// Ends a session whose credential no longer verifies, as Firestore ends a listen whose token expired or was
    /// revoked: what was queued is dropped (the caller may no longer read it), every target gets `REMOVE` with
    /// `UNAUTHENTICATED`, and the stream ends, so the client signs in again and opens a new session.
    func revoke(_ session: HubSession) {
        statistics.sessionsRevoked += 1
        session.outbox = []
        let error = HearthError(
            .unauthenticated,
            "The listen session's credential is no longer valid (the ID token expired or was revoked, or the account was disabled or deleted); sign in again and open a new stream."
        )
        for id in session.targets.keys.sorted() {
            guard let target = session.targets[id] else { continue }
            perform(target, target.lifecycle.failed(error))
        }
        if !session.outbox.isEmpty { _ = session.sink.send(session.outbox) }
        session.outbox = []
        close(session: session.id, notify: true)
    }

    /// Whether `session` may still receive data: its credential, when it has one, still verifies.
    private func stillAuthorized(_ session: HubSession) -> Bool {
        session.credentialStillValid?() ?? true
    }

    /// Ends a session: its targets go, its stream is closed. `notify` tells the registry (when the hub, not the
    /// client, ended it).
    func close(session id: String, notify: Bool = false) {
        guard let session = sessions.removeValue(forKey: id) else { return }
        session.isOpen = false
        for target in Array(session.targets.values) { perform(target, target.lifecycle.sessionEnded()) }
        session.outbox = []
        session.sink.close()
        if notify { environment.sessionEnded(id) }
    }

    /// Ends every session (the server is stopping).
    func stop() {
        for id in Array(sessions.keys) { close(session: id) }
    }

    // MARK: Output

    /// Queues a response on a session.
    func enqueue(_ response: ListenResponse, on session: HubSession) {
        session.outbox.append(response)
        markDirty(session)
    }

    func markDirty(_ session: HubSession) {
        guard !session.isDirty else { return }
        session.isDirty = true
        dirty.append(session)
    }

    /// Sends every queued response, each session's followed by a consistency marker at the current position.
    func flush(now: Duration) {
        let sessions = dirty
        dirty.removeAll(keepingCapacity: true)
        var failed: [HubSession] = []
        var revoked: [HubSession] = []
        for session in sessions {
            session.isDirty = false
            guard session.isOpen, !session.outbox.isEmpty else { continue }
            guard stillAuthorized(session) else {
                revoked.append(session)
                continue
            }
            session.outbox.append(marker)
            session.lastMarker = sequence
            let responses = session.outbox
            session.outbox = []
            session.lastSend = now
            statistics.responsesSent += responses.count
            if !session.sink.send(responses) { failed.append(session) }
        }
        for session in revoked { revoke(session) }
        for session in failed {
            statistics.sessionsCutOff += 1
            close(session: session.id, notify: true)
        }
    }

    /// The marker that every target of a session is consistent at the current position.
    var marker: ListenResponse {
        .targetChange(TargetChange(.noChange, resumeToken: ResumeToken(sequence: sequence), readTime: readTime))
    }

    /// Sends a heartbeat to every session quiet for a heartbeat interval: a fresh marker when its last one is
    /// stale (so a resume after a long quiet spell replays little), a comment otherwise.
    func heartbeat(now: Duration) {
        var failed: [HubSession] = []
        var revoked: [HubSession] = []
        for session in sessions.values where now - session.lastSend >= configuration.heartbeatInterval {
            session.lastSend = now
            guard stillAuthorized(session) else {
                revoked.append(session)
                continue
            }
            statistics.heartbeatsSent += 1
            let alive: Bool
            if session.lastMarker < sequence && !session.targets.isEmpty {
                session.lastMarker = sequence
                alive = session.sink.send([marker])
            } else {
                alive = session.sink.heartbeat()
            }
            if !alive { failed.append(session) }
        }
        for session in revoked { revoke(session) }
        for session in failed {
            statistics.sessionsCutOff += 1
            close(session: session.id, notify: true)
        }
    }

    /// Moves the position forward (after a change was applied to every target).
    func advance(to record: ChangeRecord) {
        sequence = record.sequence
        if record.commitTime > readTime { readTime = record.commitTime }
        statistics.sequence = sequence
        statistics.changesProcessed += 1
    }

    /// Refreshes the gauges of ``statistics`` (targets are counted as they come and go).
    func refreshGauges() {
        statistics.sessions = sessions.count
        statistics.queryViews = views.count
        statistics.watchedDocuments = documentWatchers.count
    }
}
