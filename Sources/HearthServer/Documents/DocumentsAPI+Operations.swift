import HearthCore
import HearthHTTP
import HearthStore
import Synchronization

/// The document operations both encodings share — REST's JSON handlers and the gRPC service's methods — once their
/// request is decoded into the model: each checks its limits, asks the rules, then reads. One place per rule, so
/// both APIs answer the same request the same way. `caller` is the request whose credential is judged (for gRPC,
/// ``GRPCCall/credentialRequest(for:)``).
extension DocumentsAPI {
    /// The most documents a listing page or a `ListCollectionIds` page holds, whatever the page size asked.
    static let maxListPage = 10_000

    /// One document, judged by the `get` rule.
    /// - Throws: `NOT_FOUND` when it does not exist, `PERMISSION_DENIED` when the rules refuse it.
    func readDocument(
        at path: ResourcePath, database: DatabaseName, transaction: TransactionID?, caller: HTTPRequest
    ) throws(HearthError) -> StoredDocument {
        try access?.authorizeGet(caller, [path], database: database)
        guard let document = try store.document(at: path, transaction: transaction) else {
            throw .notFound("Document \"\(database.name(of: path))\" not found.")
        }
        return document
    }

    /// Several documents by name, in the order named, each judged by the `get` rule (all or nothing).
    /// - Throws: `INVALID_ARGUMENT` past the server's `--max-batch-get` or for a name that is not a document's.
    func readDocuments(
        at paths: [ResourcePath], database: DatabaseName, transaction: TransactionID?, caller: HTTPRequest
    ) throws(HearthError) -> [StoredDocument?] {
        // Bounded so one request's work stays bounded; its answer is bounded in bytes by the store.
        guard paths.count <= configuration.maxBatchGetDocuments else {
            throw .invalidArgument(
                "A batchGet may name at most \(configuration.maxBatchGetDocuments) documents (the server's --max-batch-get); this one names \(paths.count)."
            )
        }
        for path in paths where !path.isDocument {
            throw .invalidArgument("\"\(database.name(of: path).prefix(200))\" is not a document name.")
        }
        try access?.authorizeGet(caller, paths, database: database)
        return try store.documents(at: paths, transaction: transaction)
    }

    /// One page of a collection (`pageSize` 0 means 1,000; at most ``maxListPage``), judged by the `list` rule as
    /// the query it is.
    func listPage(
        of collection: ResourcePath, database: DatabaseName, pageSize: Int, pageToken: String?,
        orderBy: [QueryOrder], showMissing: Bool, caller: HTTPRequest
    ) throws(HearthError) -> ListDocumentsPage {
        guard pageSize >= 0 else { throw .invalidArgument("pageSize must not be negative.") }
        let pageSize = min(pageSize == 0 ? 1000 : pageSize, Self.maxListPage)
        var query = StructuredQuery(parent: collection.parent, collectionID: collection.lastSegment, orderBy: orderBy)
        try query.validate(database: database, at: "")
        query.limit = pageSize
        try access?.authorizeQuery(caller, query, database: database)
        return try store.listDocuments(
            ListDocumentsRequest(
                collection: collection, database: database, pageSize: pageSize,
                pageToken: pageToken.flatMap { $0.isEmpty ? nil : $0 }, orderBy: orderBy, showMissing: showMissing))
    }

    /// One page of the IDs of the collections directly under `parent` (a document, or the root), for privileged
    /// callers only (``DocumentAccess/authorizeListCollectionIDs(_:devMode:)``). The page token is the last ID of
    /// the previous page, base64url-encoded.
    func collectionIDPage(
        under parent: ResourcePath, pageSize: Int, pageToken: String?, caller: HTTPRequest
    ) throws(HearthError) -> (ids: [String], nextPageToken: String?) {
        try access?.authorizeListCollectionIDs(caller, devMode: configuration.devMode)
        guard parent.segments.isEmpty || parent.isDocument else {
            throw .invalidArgument(
                "listCollectionIds takes a document (or the documents root) as its parent, not a collection.")
        }
        guard pageSize >= 0 else { throw .invalidArgument("pageSize must not be negative.") }
        let limit = pageSize == 0 ? Self.maxListPage : min(pageSize, Self.maxListPage)
        var after: String?
        if let token = pageToken, !token.isEmpty {
            guard let decoded = Base64URL.decode(token) else {
                throw .invalidArgument("Invalid pageToken: pass the nextPageToken of the previous page unchanged.")
            }
            after = String(decoding: decoded, as: UTF8.self)
        }
        let ids = try store.collectionIDs(under: parent, after: after, limit: limit + 1)
        let page = Array(ids.prefix(limit))
        let next = ids.count > limit ? page.last.map { Base64URL.encode(Array($0.utf8)) } : nil
        return (page, next)
    }

    /// The writes of one independent-writes batch (`:batchWrite`, gRPC `BatchWrite`), checked: at most
    /// ``maxBatchWrites``, each document written at most once.
    func checkBatchWrites(_ writes: [Write], database: DatabaseName) throws(HearthError) {
        guard writes.count <= Self.maxBatchWrites else {
            throw .invalidArgument(
                "A :batchWrite carries at most \(Self.maxBatchWrites) writes; this one has \(writes.count).")
        }
        var paths: Set<ResourcePath> = []
        for (index, write) in writes.enumerated() {
            // Independent writes to one document would race each other; Firestore refuses the request.
            guard paths.insert(write.path).inserted else {
                throw .invalidArgument(
                    "Invalid value at 'writes[\(index)]': \(database.name(of: write.path)) is written more than once; a :batchWrite writes each document at most once."
                )
            }
        }
    }

    /// Applies `writes` independently — each judged, committed and fanned out alone, through the one write path —
    /// and hands every outcome, in request order, to `completion` once the last is known.
    func applyIndependently(
        _ writes: [Write], database: DatabaseName, judge: CommitJudge?,
        completion: @escaping @Sendable ([Result<WriteResult?, HearthError>]) -> Void
    ) {
        guard !writes.isEmpty else { return completion([]) }
        let outcomes = BatchOutcomes(count: writes.count)
        for (index, write) in writes.enumerated() {
            store.commit([write], in: database, transaction: nil, judge: judge) { result in
                if let all = outcomes.record(result.map { $0.writeResults.first }, at: index) { completion(all) }
            }
        }
    }
}

/// The outcomes of a batch's writes as their commits complete, in any order; hands back all of them, in request
/// order, to whichever completion records the last.
private final class BatchOutcomes: Sendable {
    private let state: Mutex<(outcomes: [Result<WriteResult?, HearthError>?], pending: Int)>

    init(count: Int) { state = Mutex((Array(repeating: nil, count: count), count)) }

    func record(_ outcome: Result<WriteResult?, HearthError>, at index: Int) -> [Result<WriteResult?, HearthError>]? {
        state.withLock { state in
            state.outcomes[index] = outcome
            state.pending -= 1
            return state.pending == 0 ? state.outcomes.compactMap { $0 } : nil
        }
    }
}
