import HearthCore

/// A tree write worked out inside the engine's write transaction: fill in server values against the data as it is now, let the
/// rules judge the result, check `if-match`, replace the touched ranges and log the change. Rules come before
/// `if-match` so a caller the rules refuse learns nothing from a 412. The writer records the receipt and publishes
/// the change after `COMMIT`.
package enum TreeWriteApplier {
    /// The write's outcome, and how many updates it stored (0 when refused or stale).
    package static func apply(
        _ write: TreeWrite, commitTime: Int64, in db: some TreeRowAccess
    ) throws -> (outcome: TreeWriteOutcome, writes: Int) {
        let nowMillis = commitTime / 1000
        let kind: TreeChange.Kind
        var updates: [TreeChange.Update] = []
        switch write.operation {
        case .put(let value):
            kind = .put
            updates = [
                TreeChange.Update(path: .root, node: try resolve(value, at: write.path, write.namespace, nowMillis, db))
            ]
        case .patch(let entries):
            kind = .patch
            // Every server value sees the data as it was before this update, as Firebase resolves them.
            for entry in entries.sorted(by: { $0.path < $1.path }) {
                let node = try resolve(
                    entry.value, at: write.path.appending(entry.path), write.namespace, nowMillis, db)
                updates.append(TreeChange.Update(path: entry.path, node: node))
            }
        case .priority(let priority):
            kind = .put
            var node = try db.node(write.namespace, write.path)
            node?.priority = priority
            updates = [TreeChange.Update(path: .root, node: node)]
        }
        if let judge = write.judge {
            let namespace = write.namespace
            let proposal = TreeWriteProposal(
                namespace: namespace, path: write.path, updates: updates, nowMillis: nowMillis,
                current: { path in try db.node(namespace, path) },
                currentPriority: { path in try db.priority(namespace, path) })
            guard try judge(proposal) else { return (.denied, 0) }
        }
        if let expected = write.ifMatch {
            let current = try db.node(write.namespace, write.path)
            let etag = TreeETag.of(current)
            if etag != expected { return (.preconditionFailed(current: current, etag: etag), 0) }
        }
        for update in updates {
            try db.put(update.node, write.namespace, at: write.path.appending(update.path))
        }
        let change = try db.appendChange(
            commitTime: commitTime, namespace: write.namespace, kind: kind, path: write.path, updates: updates)
        return (.committed(change), updates.count)
    }

    private static func resolve(
        _ value: TreeWriteValue, at path: TreePath, _ namespace: String, _ nowMillis: Int64, _ db: some TreeRowAccess
    ) throws -> TreeNode? {
        guard value.hasServerValues else { return value.node }
        var current: [TreePath: TreeNode] = [:]
        for site in value.serverValues {
            if case .increment = site.value, let node = try db.node(namespace, path.appending(site.path)) {
                current[site.path] = node
            }
        }
        return value.resolved(nowMillis: nowMillis) { current[$0] }
    }
}
