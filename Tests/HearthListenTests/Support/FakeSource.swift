import HearthCore
import HearthStore
import Synchronization

@testable import HearthListen

/// An in-memory store for the hub: documents, a change log, a feed. Queries are answered by scanning with the
/// pure matcher, in query order, like the real store's index scans.
final class FakeSource: ListenSource {
    struct State {
        var documents: [ResourcePath: StoredDocument] = [:]
        var log: [ChangeRecord] = []
        var sequence: Int64 = 0
        var clock: Int64 = 1_700_000_000_000_000
        var prunedThrough: Int64 = 0
        var queries = 0
        var failQueries: HearthError?
        /// Commits to apply right after the next query is answered (to test reads racing with writes).
        var afterNextQuery: [(ResourcePath, String?)] = []
    }

    let state = Mutex(State())
    let changeFeed = ChangeFeed<ChangeRecord>()

    /// Writes one document (`fields` as Firestore JSON, `nil` deletes) and publishes the record unless told not to.
    @discardableResult
    func write(_ path: String, _ fields: String?, publish: Bool = true) -> ChangeRecord {
        let record = state.withLock {
            commit(&$0, ResourcePath(segments: path.split(separator: "/").map(String.init)), fields)
        }
        if publish { changeFeed.publish([record]) }
        return record
    }

    /// Several writes in one commit (one publication).
    @discardableResult
    func commit(_ writes: [(String, String?)], publish: Bool = true) -> [ChangeRecord] {
        let records = state.withLock { state in
            writes.map { commit(&state, ResourcePath(segments: $0.0.split(separator: "/").map(String.init)), $0.1) }
        }
        if publish { changeFeed.publish(records) }
        return records
    }

    /// Drops log records up to `sequence`, as the store's retention does.
    func prune(through sequence: Int64) {
        state.withLock { state in
            state.log.removeAll { $0.sequence <= sequence }
            state.prunedThrough = sequence
        }
    }

    var queryCount: Int { state.withLock { $0.queries } }

    private func commit(_ state: inout State, _ path: ResourcePath, _ fields: String?) -> ChangeRecord {
        state.sequence += 1
        state.clock += 1000
        let time = Timestamp(microseconds: state.clock)
        let before = state.documents[path]
        let after = fields.map { json -> StoredDocument in
            let bytes = Value.encodeFields(try! Value.decodeFields(try! JSONParser.parse(json), at: ""))
            return StoredDocument(
                path: path, fieldsJSON: bytes, createTime: before?.createTime ?? time, updateTime: time)
        }
        state.documents[path] = after
        let record = ChangeRecord(sequence: state.sequence, commitTime: time, path: path, before: before, after: after)
        state.log.append(record)
        return record
    }

    func changes(after sequence: Int64, limit: Int) throws(HearthError) -> [ChangeRecord] {
        state.withLock { state in Array(state.log.lazy.filter { $0.sequence > sequence }.prefix(limit)) }
    }

    /// Covered unless pruned past `sequence`, as a store with retention answers.
    func covers(after sequence: Int64) throws(HearthError) -> Bool {
        sequence >= state.withLock { $0.prunedThrough }
    }

    func head() throws(HearthError) -> Int64 {
        state.withLock { $0.sequence }
    }

    func runQuery(_ query: StructuredQuery) throws(HearthError) -> [StoredDocument] {
        let (result, later): ([StoredDocument], [(ResourcePath, String?)]) = try state.withLock {
            state throws(HearthError) in
            state.queries += 1
            if let failure = state.failQueries { throw failure }
            let normalized = query.normalized()
            var matches = state.documents.values.compactMap { document -> (StoredDocument, [String: Value])? in
                guard let fields = try? document.fields(),
                    QueryMatcher.matches(path: document.path, fields: fields, query: normalized)
                else { return nil }
                return (document, fields)
            }
            matches.sort { QueryMatcher.compare(($0.0.path, $0.1), ($1.0.path, $1.1), orderBy: normalized.orderBy) < 0 }
            let later = state.afterNextQuery
            state.afterNextQuery = []
            return (Array(matches.prefix(query.limit ?? Int.max).map(\.0)), later)
        }
        // Commits that land after the read but before the hub reads the log: the hub must undo them.
        if !later.isEmpty {
            let records = state.withLock { state in later.map { commit(&state, $0.0, $0.1) } }
            changeFeed.publish(records)
        }
        return result
    }

    func documents(at paths: [ResourcePath]) throws(HearthError) -> [StoredDocument?] {
        state.withLock { state in paths.map { state.documents[$0] } }
    }
}

extension ResourcePath {
    /// `"a/b"` as a path, for tests.
    static func of(_ text: String) -> ResourcePath {
        ResourcePath(segments: text.split(separator: "/").map(String.init))
    }
}
