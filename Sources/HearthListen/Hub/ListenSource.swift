public import HearthCore
public import HearthStore

/// What the hub reads: the committed-change feed, the change log behind it, and the documents. The hub never
/// writes, and it reads nothing but this, so a second node can serve listeners from a shared log.
public protocol ListenSource: Sendable {
    /// Committed changes, pushed in commit order right after each commit.
    var changeFeed: ChangeFeed<ChangeRecord> { get }
    /// Change-log entries after `sequence`, oldest first, at most `limit`.
    func changes(after sequence: Int64, limit: Int) throws(HearthError) -> [ChangeRecord]
    /// The change log's head: the last sequence handed to a committed change (0 before the first).
    func head() throws(HearthError) -> Int64
    /// Whether the change log still holds every entry after `sequence`, so results there can be rebuilt.
    func covers(after sequence: Int64) throws(HearthError) -> Bool
    /// The change log's head and the read time of a listener starting there (``DocumentChangeLog/headAndTime()``).
    func headAndTime() throws(HearthError) -> (sequence: Int64, time: Timestamp?)
    /// A query's results, in query order (index-backed).
    func runQuery(_ query: StructuredQuery) throws(HearthError) -> [StoredDocument]
    /// The documents at `paths` from one snapshot, `nil` where missing.
    func documents(at paths: [ResourcePath]) throws(HearthError) -> [StoredDocument?]
}

extension ListenSource {
    /// For a log whose head is always a committed entry: the head's commit time.
    public func headAndTime() throws(HearthError) -> (sequence: Int64, time: Timestamp?) {
        try ChangeLogHead.timed(head: head(), changes: changes(after:limit:))
    }
}

/// A ``ListenSource`` over a storage engine.
public struct DocumentStoreListenSource: ListenSource {
    /// The engine read: its change log and its reads, never its writes.
    public let store: any DocumentChangeLog & DocumentReader

    /// Reads `store`.
    public init(store: any DocumentChangeLog & DocumentReader) {
        self.store = store
    }

    /// The engine's feed.
    public var changeFeed: ChangeFeed<ChangeRecord> { store.changeFeed }

    /// The engine's change log.
    public func changes(after sequence: Int64, limit: Int) throws(HearthError) -> [ChangeRecord] {
        try store.changes(after: sequence, limit: limit)
    }

    /// The engine's change-log head.
    public func head() throws(HearthError) -> Int64 {
        try store.head()
    }

    /// The engine's change-log head and its read time.
    public func headAndTime() throws(HearthError) -> (sequence: Int64, time: Timestamp?) {
        try store.headAndTime()
    }

    /// Whether the engine's change log still reaches back to `sequence`.
    public func covers(after sequence: Int64) throws(HearthError) -> Bool {
        try store.covers(after: sequence)
    }

    /// Runs the query outside any transaction.
    public func runQuery(_ query: StructuredQuery) throws(HearthError) -> [StoredDocument] {
        try store.runQuery(query, transaction: nil).documents
    }

    /// Reads the documents outside any transaction.
    public func documents(at paths: [ResourcePath]) throws(HearthError) -> [StoredDocument?] {
        try store.documents(at: paths, transaction: nil)
    }
}
