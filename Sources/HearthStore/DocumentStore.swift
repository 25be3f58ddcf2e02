public import HearthCore

/// A storage engine for documents: the one write path (``commit(_:completion:)``) and the reads the document
/// API needs. Engines: SQLite (embedded default); PostgreSQL later. Every engine keeps automatic single-field
/// index entries and a change log in the same transaction as each commit.
public protocol DocumentStore: Sendable {
    /// Commits writes atomically: all of them land with one commit time, or none does. The completion runs
    /// once the commit is durable (or failed), on a thread of the store's choosing. `database` names documents
    /// in error messages.
    /// With a read-write `transaction`, the commit first checks that nothing the transaction read has changed
    /// (`ABORTED` otherwise) and then ends the transaction. A `judge` (the caller's security rules) runs inside the
    /// commit's transaction on the commit as worked out; if it throws, nothing is applied and its error is the answer.
    /// A `receipt`'s key and answer are recorded in the same transaction; a key already recorded (or being recorded
    /// by a commit in flight) fails the commit with `UNAVAILABLE` and applies nothing, so the caller can retry and
    /// find the answer with ``recordedAnswer(forWriteID:)``.
    func commit(
        _ writes: [Write], in database: DatabaseName, transaction: TransactionID?, judge: CommitJudge?,
        receipt: WriteReceipt<CommitResult>?,
        completion: @escaping @Sendable (Result<CommitResult, HearthError>) -> Void)

    /// The answer recorded with a write's idempotency key, or `nil` when no write with that key was applied (or its
    /// receipt has been pruned).
    func recordedAnswer(forWriteID id: String) throws(HearthError) -> [UInt8]?

    /// The documents at several paths, read from one consistent snapshot; `nil` where missing. In a
    /// transaction, read-only ones read its snapshot and read-write ones record what they read.
    func documents(at paths: [ResourcePath], transaction: TransactionID?) throws(HearthError) -> [StoredDocument?]

    /// The documents a query matches, answered from indexes (`FAILED_PRECONDITION` naming the composite
    /// index to declare when none can serve it). Pass a query as decoded; the store normalizes it.
    func runQuery(_ query: StructuredQuery, transaction: TransactionID?) throws(HearthError) -> QueryResults

    /// Aggregates (`count`, `sum`, `avg`) over a query's matches.
    func runAggregation(
        _ query: AggregationQuery, transaction: TransactionID?
    ) throws(HearthError) -> AggregationResults

    /// Starts a transaction for `caller` — who holds it, for the per-caller limits (the signed-in user, else
    /// the client's address); `nil` for callers without one, such as the administrator.
    func beginTransaction(_ mode: TransactionMode, caller: String?) throws(HearthError) -> TransactionID

    /// Ends a transaction without committing. Unknown IDs are an error, as in Firestore.
    func rollback(_ transaction: TransactionID) throws(HearthError)

    /// Declared composite indexes and whether each is ready.
    func indexStatuses() -> [IndexStatus]

    /// One page of a collection's documents.
    func listDocuments(_ request: ListDocumentsRequest) throws(HearthError) -> ListDocumentsPage

    /// The IDs of the collections directly below a document (or the root), in order.
    func collectionIDs(under parent: ResourcePath, after: String?, limit: Int) throws(HearthError) -> [String]

    /// Deletes every document (the emulator's wipe), recording each deletion in the change log.
    func deleteAllDocuments(completion: @escaping @Sendable (Result<Int, HearthError>) -> Void)

    /// Committed document changes as they happen, in commit order.
    var changeFeed: ChangeFeed<ChangeRecord> { get }

    /// Change-log entries after a sequence number, oldest first.
    func changes(after sequence: Int64, limit: Int) throws(HearthError) -> [ChangeRecord]

    /// Counters for `/metrics`.
    func statistics() -> StoreStatistics

    /// Finishes pending commits and closes the database. Idempotent.
    func close()
}

/// What a commit did.
public struct CommitResult: Sendable, Equatable {
    /// The one time every write of the commit carries.
    public var commitTime: Timestamp
    /// One result per write, in order.
    public var writeResults: [WriteResult]

    /// Creates a result.
    public init(commitTime: Timestamp, writeResults: [WriteResult]) {
        self.commitTime = commitTime
        self.writeResults = writeResults
    }
}

/// What one write did (`WriteResult`).
public struct WriteResult: Sendable, Equatable {
    /// The document's update time after the write; `nil` after a delete.
    public var updateTime: Timestamp?
    /// One value per transform.
    public var transformResults: [Value]
    /// The document after the write; `nil` after a delete.
    public var document: StoredDocument?

    /// Creates a result.
    public init(updateTime: Timestamp?, transformResults: [Value], document: StoredDocument?) {
        self.updateTime = updateTime
        self.transformResults = transformResults
        self.document = document
    }
}

/// A document as stored: its fields kept as Firestore JSON, so reads can answer without decoding them.
public struct StoredDocument: Sendable, Equatable {
    /// The document's path.
    public var path: ResourcePath
    /// The Firestore `fields` JSON object.
    public var fieldsJSON: [UInt8]
    /// When the document was created.
    public var createTime: Timestamp
    /// When it last changed.
    public var updateTime: Timestamp

    /// Creates a stored document.
    public init(path: ResourcePath, fieldsJSON: [UInt8], createTime: Timestamp, updateTime: Timestamp) {
        self.path = path
        self.fieldsJSON = fieldsJSON
        self.createTime = createTime
        self.updateTime = updateTime
    }

    /// The decoded fields.
    public func fields() throws(HearthError) -> [String: Value] {
        do {
            return try Value.decodeStoredFields(try JSONParser.parse(fieldsJSON))
        } catch let error as HearthError {
            throw error
        } catch {
            throw .internal("Stored document \(path) is unreadable.")
        }
    }

    /// The document as a snapshot with decoded fields.
    public func snapshot() throws(HearthError) -> DocumentSnapshot {
        DocumentSnapshot(path: path, fields: try fields(), createTime: createTime, updateTime: updateTime)
    }
}

/// A request for one page of a collection (`documents.list`).
public struct ListDocumentsRequest: Sendable, Equatable {
    /// The collection listed.
    public var collection: ResourcePath
    /// The database, which names documents in page tokens.
    public var database: DatabaseName
    /// The most documents to return.
    public var pageSize: Int
    /// Where the previous page stopped (an opaque token from ``ListDocumentsPage/nextPageToken``); it is refused
    /// with another ordering or collection.
    public var pageToken: String?
    /// The orderings, with a query's semantics: documents lacking an ordered field are left out, values of
    /// different types order as in queries, and `__name__` follows in the direction of the last ordering unless
    /// listed. Empty lists by name, ascending. Several fields need a declared composite index, as in a query.
    public var orderBy: [QueryOrder]
    /// Whether missing documents are listed too: those that do not exist but have documents nested below them,
    /// as ``ListedDocument/missing(_:)``, in name order with the others. Not with `orderBy` (`INVALID_ARGUMENT`).
    public var showMissing: Bool

    /// Creates a request.
    public init(
        collection: ResourcePath, database: DatabaseName, pageSize: Int, pageToken: String? = nil,
        orderBy: [QueryOrder] = [], showMissing: Bool = false
    ) {
        self.collection = collection
        self.database = database
        self.pageSize = pageSize
        self.pageToken = pageToken
        self.orderBy = orderBy
        self.showMissing = showMissing
    }
}

/// One entry of a listed page.
public enum ListedDocument: Sendable, Equatable {
    /// A document that exists.
    case found(StoredDocument)
    /// A document that does not exist but has documents nested below it (listed with `showMissing`).
    case missing(ResourcePath)

    /// The document's path.
    public var path: ResourcePath {
        switch self {
        case .found(let document): document.path
        case .missing(let path): path
        }
    }
}

/// One page of a collection.
public struct ListDocumentsPage: Sendable, Equatable {
    /// The documents, in order.
    public var documents: [ListedDocument]
    /// A token for the next page, or `nil` at the end.
    public var nextPageToken: String?

    /// Creates a page.
    public init(documents: [ListedDocument], nextPageToken: String?) {
        self.documents = documents
        self.nextPageToken = nextPageToken
    }
}

/// One committed change to one document, from the change log.
public struct ChangeRecord: Sendable, Equatable {
    /// The change's position in the log; strictly increasing in commit order.
    public var sequence: Int64
    /// The commit's time.
    public var commitTime: Timestamp
    /// The document before, or `nil` if it did not exist.
    public var before: StoredDocument?
    /// The document after, or `nil` if it was deleted.
    public var after: StoredDocument?
    /// The document's path.
    public var path: ResourcePath

    /// Creates a record.
    public init(
        sequence: Int64, commitTime: Timestamp, path: ResourcePath, before: StoredDocument?, after: StoredDocument?
    ) {
        self.sequence = sequence
        self.commitTime = commitTime
        self.path = path
        self.before = before
        self.after = after
    }
}

/// Counters a store reports for `/metrics`.
public struct StoreStatistics: Sendable, Equatable {
    /// Commits acknowledged since start.
    public var commits: Int
    /// Writes acknowledged since start.
    public var writes: Int
    /// Commits that failed since start.
    public var failedCommits: Int
    /// Bytes the database occupies on disk (main file and write-ahead log).
    public var databaseBytes: Int

    /// Creates statistics.
    public init(commits: Int, writes: Int, failedCommits: Int, databaseBytes: Int) {
        self.commits = commits
        self.writes = writes
        self.failedCommits = failedCommits
        self.databaseBytes = databaseBytes
    }
}

extension DocumentStore {
    /// Commits without an idempotency key.
    public func commit(
        _ writes: [Write], in database: DatabaseName, transaction: TransactionID?, judge: CommitJudge?,
        completion: @escaping @Sendable (Result<CommitResult, HearthError>) -> Void
    ) {
        commit(writes, in: database, transaction: transaction, judge: judge, receipt: nil, completion: completion)
    }

    /// Commits without a rules check or an idempotency key.
    public func commit(
        _ writes: [Write], in database: DatabaseName, transaction: TransactionID?,
        completion: @escaping @Sendable (Result<CommitResult, HearthError>) -> Void
    ) {
        commit(writes, in: database, transaction: transaction, judge: nil, receipt: nil, completion: completion)
    }

    /// Commits outside any transaction, without a rules check or an idempotency key.
    public func commit(
        _ writes: [Write], in database: DatabaseName,
        completion: @escaping @Sendable (Result<CommitResult, HearthError>) -> Void
    ) {
        commit(writes, in: database, transaction: nil, judge: nil, receipt: nil, completion: completion)
    }

    /// The document at a path, or `nil`.
    public func document(
        at path: ResourcePath, transaction: TransactionID? = nil
    ) throws(HearthError) -> StoredDocument? {
        try documents(at: [path], transaction: transaction)[0]
    }

    /// The documents at several paths outside any transaction.
    public func documents(at paths: [ResourcePath]) throws(HearthError) -> [StoredDocument?] {
        try documents(at: paths, transaction: nil)
    }
}
