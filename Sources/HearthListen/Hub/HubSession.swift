import HearthCore
import HearthStore

/// Identifies a target across sessions.
struct TargetKey: Hashable, Sendable {
    let session: String
    let target: Int32
}

/// One session's state inside the hub (confined to the hub's thread).
final class HubSession {
    let id: String
    let database: DatabaseName
    let caller: ListenCaller
    let sink: any ListenSink
    /// Re-checks the credential that opened the session (expiry, revocation, a disabled or deleted account) before
    /// each delivery; `nil` when there is none to re-check (no credential, or the admin's).
    let credentialStillValid: (@Sendable () -> Bool)?
    var targets: [Int32: HubTarget] = [:]
    /// Responses waiting for the next flush.
    var outbox: [ListenResponse] = []
    /// When bytes last went out, for heartbeats.
    var lastSend: Duration
    /// The change-log position of the last consistency marker sent.
    var lastMarker: Int64
    /// Set while queued for the next flush.
    var isDirty = false
    /// Document events of the change being processed, merged across targets.
    var pending: [PendingEvent] = []
    var pendingMark = 0
    var isOpen = true

    init(
        id: String, database: DatabaseName, caller: ListenCaller, sink: any ListenSink,
        credentialStillValid: (@Sendable () -> Bool)?, now: Duration, sequence: Int64
    ) {
        self.id = id
        self.database = database
        self.caller = caller
        self.sink = sink
        self.credentialStillValid = credentialStillValid
        lastSend = now
        lastMarker = sequence
    }

    /// What happened to one document in the targets of this session during one change.
    struct PendingEvent {
        let path: ResourcePath
        var document: StoredDocument?
        var changedIn: [Int32] = []
        var removedFrom: [Int32] = []
        var deletedFrom: [Int32] = []
    }

    /// Notes an event, merging it with others for the same document.
    func note(_ path: ResourcePath, mark: Int, _ update: (inout PendingEvent) -> Void) -> Bool {
        var first = false
        if pendingMark != mark {
            pendingMark = mark
            pending.removeAll(keepingCapacity: true)
            first = true
        }
        if let index = pending.firstIndex(where: { $0.path == path }) {
            update(&pending[index])
        } else {
            var event = PendingEvent(path: path)
            update(&event)
            pending.append(event)
        }
        return first
    }
}

/// One target inside the hub.
final class HubTarget {
    let key: TargetKey
    let spec: ListenTarget
    let session: HubSession
    var lifecycle: TargetLifecycle
    /// The shared view of a query target.
    var view: QueryView?
    /// The client removed it, which already freed its ID in the session registry.
    var removedByClient = false

    init(spec: ListenTarget, session: HubSession) {
        key = TargetKey(session: session.id, target: spec.id)
        self.spec = spec
        self.session = session
        lifecycle = TargetLifecycle(id: spec.id, once: spec.once)
    }

    var id: Int32 { spec.id }
}
