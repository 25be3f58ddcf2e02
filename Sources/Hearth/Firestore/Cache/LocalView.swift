import HearthCore

/// A commit whose effect reads and listeners show before (or while) the server's copy catches up.
struct LocalCommit: Sendable {
    var writes: [Write]
    /// When the app made the write: the estimate for server timestamps, the same on every raise so a pending
    /// `serverTimestamp()` does not look like a new change each time.
    var localTime: HearthCore.Timestamp
    /// Set once the server acknowledged the commit: it no longer counts as pending, and a server copy of a document
    /// updated at or after this time already holds it.
    var commitTime: HearthCore.Timestamp?
}

/// Latency compensation: server (or cached) documents with the local commits applied over them, as the one place
/// where reads from the cache and listeners compute what the app sees.
enum LocalView {
    /// A document with every commit that touches it applied in order. `pending` is whether an unacknowledged commit
    /// touched it (`hasPendingWrites`). A write whose precondition fails locally (an update of a document this client
    /// has never seen) is skipped: the server decides.
    static func overlay(
        _ path: ResourcePath, on base: StoredDocument?, commits: [LocalCommit]
    ) -> (document: StoredDocument?, pending: Bool) {
        var current = base
        var pending = false
        for commit in commits {
            if let committed = commit.commitTime, let updated = base?.updateTime, updated >= committed { continue }
            for write in commit.writes where write.path == path {
                if commit.commitTime == nil { pending = true }
                let snapshot = current.map {
                    HearthCore.DocumentSnapshot(
                        path: $0.path, fields: $0.fields, createTime: $0.createTime ?? commit.localTime,
                        updateTime: $0.updateTime ?? commit.localTime)
                }
                guard let outcome = try? WriteApplier.apply(write, to: snapshot, commitTime: commit.localTime) else {
                    continue
                }
                current = outcome.document.map {
                    StoredDocument(
                        path: $0.path, fields: $0.fields, createTime: $0.createTime, updateTime: $0.updateTime)
                }
            }
        }
        return (current, pending)
    }

    /// A query's results over `base` with the commits applied. Documents of `base` are taken to match already when
    /// `trusted` (the server chose them); otherwise, and for every document a commit touched, HearthCore's matcher
    /// decides. `lookup` finds a touched document the base does not hold (it may enter the results). Results are in
    /// the query's order and cut to its limit.
    static func results(
        of query: StructuredQuery, base: [ResourcePath: StoredDocument], trusted: Bool,
        lookup: (ResourcePath) -> StoredDocument?, commits: [LocalCommit]
    ) -> (documents: [StoredDocument], pending: Set<ResourcePath>) {
        let normalized = query.normalized()
        var byPath = base
        if !trusted {
            byPath = byPath.filter { QueryMatcher.matches(path: $0.key, fields: $0.value.fields, query: normalized) }
        }
        var pending: Set<ResourcePath> = []
        let touched = Set(commits.flatMap { $0.writes.map(\.path) }).filter(query.contains(path:))
        for path in touched {
            let (document, isPending) = overlay(path, on: base[path] ?? lookup(path), commits: commits)
            if let document, QueryMatcher.matches(path: path, fields: document.fields, query: normalized) {
                byPath[path] = document
                if isPending { pending.insert(path) }
            } else {
                byPath[path] = nil
            }
        }
        let order = normalized.orderBy
        var results = byPath.values.sorted {
            QueryMatcher.compare(($0.path, $0.fields), ($1.path, $1.fields), orderBy: order) < 0
        }
        if let limit = query.limit, results.count > limit { results = Array(results.prefix(limit)) }
        return (results, pending)
    }
}
