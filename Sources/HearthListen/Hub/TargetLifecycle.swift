import HearthCore

/// The life of one target on a session, as Firestore's watch protocol orders it: `ADD`, (`RESET`,) its results,
/// `CURRENT` with a resume token; then changes; finally `REMOVE` (asked for, or with a cause).
///
/// Pure: the hub reports what happened and performs the returned actions in order.
struct TargetLifecycle: Sendable {
    enum State: Sendable, Equatable {
        /// Added; results not sent yet.
        case adding
        /// Results sent; changes flow.
        case current
        /// Gone; nothing more is sent for it.
        case removed
    }

    /// How the target's results were read.
    enum Snapshot: Sendable {
        /// First listen: every result.
        case fresh([ListenDocument])
        /// The resume token was too old or unknown: start over.
        case reset([ListenDocument])
        /// Resumed: only what changed since the token, then the count the client should now hold.
        case resumed(changed: [ListenDocument], removed: [String], deleted: [String], count: Int)

        /// About how many bytes it takes on the wire.
        var byteCount: Int {
            switch self {
            case .fresh(let documents), .reset(let documents):
                return documents.reduce(0) { $0 + $1.json.count + 64 }
            case .resumed(let changed, let removed, let deleted, _):
                return changed.reduce(0) { $0 + $1.json.count + 64 }
                    + (removed + deleted).reduce(0) { $0 + $1.utf8.count + 96 }
            }
        }
    }

    enum Action: Sendable, Equatable {
        /// Queue this response on the session.
        case send(ListenResponse)
        /// Forget the target (stop matching changes against it).
        case unregister
    }

    let id: Int32
    /// Removed as soon as it is current.
    let once: Bool
    private(set) var state = State.adding

    init(id: Int32, once: Bool) {
        self.id = id
        self.once = once
    }

    /// The results were read at `token`.
    mutating func loaded(_ snapshot: Snapshot, token: ResumeToken, readTime: Timestamp) -> [Action] {
        guard state == .adding else { return [] }
        var actions: [Action] = [.send(.targetChange(TargetChange(.add, targetIDs: [id])))]
        switch snapshot {
        case .fresh(let documents):
            actions += documents.map { .send(.documentChange($0, targetIDs: [id])) }
        case .reset(let documents):
            actions.append(.send(.targetChange(TargetChange(.reset, targetIDs: [id]))))
            actions += documents.map { .send(.documentChange($0, targetIDs: [id])) }
        case .resumed(let changed, let removed, let deleted, let count):
            actions += changed.map { .send(.documentChange($0, targetIDs: [id])) }
            actions += removed.map { .send(.documentRemove(name: $0, removedTargetIDs: [id], readTime: readTime)) }
            actions += deleted.map { .send(.documentDelete(name: $0, removedTargetIDs: [id], readTime: readTime)) }
            actions.append(.send(.filter(targetID: id, count: count)))
        }
        actions.append(
            .send(.targetChange(TargetChange(.current, targetIDs: [id], resumeToken: token, readTime: readTime))))
        state = .current
        if once {
            state = .removed
            actions += [.send(.targetChange(TargetChange(.remove, targetIDs: [id]))), .unregister]
        }
        return actions
    }

    /// Whether changes may be delivered for it now.
    var receivesChanges: Bool { state == .current }

    /// The client asked to remove it.
    mutating func removeRequested() -> [Action] {
        guard state != .removed else { return [] }
        state = .removed
        return [.send(.targetChange(TargetChange(.remove, targetIDs: [id]))), .unregister]
    }

    /// It cannot go on (refused by rules, a query the store cannot serve, an internal failure).
    mutating func failed(_ error: HearthError) -> [Action] {
        guard state != .removed else { return [] }
        state = .removed
        return [.send(.targetChange(TargetChange(.remove, targetIDs: [id], cause: error))), .unregister]
    }

    /// The session ended: no message can reach the client any more.
    mutating func sessionEnded() -> [Action] {
        guard state != .removed else { return [] }
        state = .removed
        return [.unregister]
    }
}
