public import HearthCore

/// A storage engine for documents, as the server uses it: its four roles together. Engines: SQLite (embedded
/// default); PostgreSQL later. Every engine keeps automatic single-field index entries and a change log in the same
/// transaction as each commit. A part of the server that needs one role takes that protocol alone.
public typealias DocumentStore = DocumentReader & DocumentCommitter & DocumentChangeLog & DocumentStoreAdministration

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
    /// Bytes of those in the write-ahead log (0 for an engine without one): what a checkpoint has yet to fold in.
    public var walBytes: Int

    /// Creates statistics.
    public init(commits: Int, writes: Int, failedCommits: Int, databaseBytes: Int, walBytes: Int = 0) {
        self.commits = commits
        self.writes = writes
        self.failedCommits = failedCommits
        self.databaseBytes = databaseBytes
        self.walBytes = walBytes
    }
}
