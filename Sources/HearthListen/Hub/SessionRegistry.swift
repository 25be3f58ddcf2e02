import HearthCore

/// Which sessions exist, who owns each, and which target IDs each holds — checked on the request thread, so a
/// POST is answered (`{}` or an error) at once while the work happens later on the hub's thread.
struct SessionRegistry: Sendable {
    struct Entry: Sendable {
        let identity: String
        let database: DatabaseName
        var targets: Set<Int32> = []
        var nextTargetID: Int32 = 1
    }

    private(set) var entries: [String: Entry] = [:]

    mutating func open(_ id: String, identity: String, database: DatabaseName) {
        entries[id] = Entry(identity: identity, database: database)
    }

    mutating func close(_ id: String) {
        entries[id] = nil
    }

    /// Checks a request against the session and reserves or releases target IDs; returns the request to carry out
    /// (with a server-chosen ID for `addTarget` with ID 0).
    mutating func admit(
        _ request: ListenRequest, session id: String, caller: ListenCaller, maxTargets: Int
    ) throws(HearthError) -> ListenRequest {
        guard var entry = entries[id] else {
            throw ListenHub.unknownSession(id)
        }
        guard entry.identity == caller.identity else {
            throw HearthError(
                .permissionDenied, "This listen session belongs to another caller; use the credentials that opened it.")
        }
        switch request {
        case .addTarget(var target):
            if target.id == 0 {
                while entry.targets.contains(entry.nextTargetID) { entry.nextTargetID &+= 1 }
                target.id = entry.nextTargetID
                entry.nextTargetID &+= 1
                if entry.nextTargetID <= 0 { entry.nextTargetID = 1 }
            }
            guard !entry.targets.contains(target.id) else {
                throw .invalidArgument(
                    "Target \(target.id) is already active on this session; remove it first or use another ID.")
            }
            guard entry.targets.count < maxTargets else {
                throw HearthError(.resourceExhausted, "A listen session holds at most \(maxTargets) targets.")
            }
            entry.targets.insert(target.id)
            entries[id] = entry
            return .addTarget(target)
        case .removeTarget(let target):
            guard entry.targets.remove(target) != nil else {
                throw .invalidArgument("Target \(target) is not active on this session.")
            }
            entries[id] = entry
            return request
        }
    }

    /// Frees a target ID the hub removed by itself (a `once` target, a refused or failed one).
    mutating func release(_ key: TargetKey) {
        entries[key.session]?.targets.remove(key.target)
    }
}
