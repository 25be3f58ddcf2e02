import Foundation
import HearthCore

/// A query over a collection or collection group — Hearth's `Query`. Builders return new queries; nothing runs until
/// ``getDocuments(source:)``. A malformed query (bad value, cursor without ordering) fails when it runs, with
/// `invalidArgument`.
/// Not final: `CollectionReference` is a query, as in Firebase. Its stored properties are immutable Sendable values.
public class Query: @unchecked Sendable {
    /// The database.
    public let firestore: Firestore
    let state: QueryState

    init(_ firestore: Firestore, _ state: QueryState) {
        self.firestore = firestore
        var state = state
        state.database = firestore.database
        self.state = state
    }

    private func with(_ change: (inout QueryState) -> Void) -> Query {
        var next = state
        change(&next)
        return Query(firestore, next)
    }

    // MARK: Filters

    /// Adds a ``Filter`` (including `Filter.orFilter`/`andFilter`).
    public func whereFilter(_ filter: Filter) -> Query { with { $0.filters.append(filter.build) } }

    /// `field == value` (`nil`/`NSNull` matches null fields).
    public func whereField(_ field: String, isEqualTo value: Any) -> Query {
        whereFilter(.whereField(field, isEqualTo: value))
    }
    /// `field != value`.
    public func whereField(_ field: String, isNotEqualTo value: Any) -> Query {
        whereFilter(.whereField(field, isNotEqualTo: value))
    }
    /// `field < value`.
    public func whereField(_ field: String, isLessThan value: Any) -> Query {
        whereFilter(.whereField(field, isLessThan: value))
    }
    /// `field <= value`.
    public func whereField(_ field: String, isLessThanOrEqualTo value: Any) -> Query {
        whereFilter(.whereField(field, isLessThanOrEqualTo: value))
    }
    /// `field > value`.
    public func whereField(_ field: String, isGreaterThan value: Any) -> Query {
        whereFilter(.whereField(field, isGreaterThan: value))
    }
    /// `field >= value`.
    public func whereField(_ field: String, isGreaterThanOrEqualTo value: Any) -> Query {
        whereFilter(.whereField(field, isGreaterThanOrEqualTo: value))
    }
    /// The array field contains `value`.
    public func whereField(_ field: String, arrayContains value: Any) -> Query {
        whereFilter(.whereField(field, arrayContains: value))
    }
    /// The array field contains any of `values` (at most 30).
    public func whereField(_ field: String, arrayContainsAny values: [Any]) -> Query {
        whereFilter(.whereField(field, arrayContainsAny: values))
    }
    /// The field equals one of `values` (at most 30).
    public func whereField(_ field: String, in values: [Any]) -> Query { whereFilter(.whereField(field, in: values)) }
    /// The field equals none of `values`.
    public func whereField(_ field: String, notIn values: [Any]) -> Query {
        whereFilter(.whereField(field, notIn: values))
    }
    /// `field == value` by ``FieldPath`` (``FieldPath/documentID()`` takes IDs or references).
    public func whereField(_ path: FieldPath, isEqualTo value: Any) -> Query {
        whereFilter(.whereField(path, isEqualTo: value))
    }
    /// `field != value` by ``FieldPath``.
    public func whereField(_ path: FieldPath, isNotEqualTo value: Any) -> Query {
        whereFilter(.whereField(path, isNotEqualTo: value))
    }
    /// `field < value` by ``FieldPath``.
    public func whereField(_ path: FieldPath, isLessThan value: Any) -> Query {
        whereFilter(.whereField(path, isLessThan: value))
    }
    /// `field <= value` by ``FieldPath``.
    public func whereField(_ path: FieldPath, isLessThanOrEqualTo value: Any) -> Query {
        whereFilter(.whereField(path, isLessThanOrEqualTo: value))
    }
    /// `field > value` by ``FieldPath``.
    public func whereField(_ path: FieldPath, isGreaterThan value: Any) -> Query {
        whereFilter(.whereField(path, isGreaterThan: value))
    }
    /// `field >= value` by ``FieldPath``.
    public func whereField(_ path: FieldPath, isGreaterThanOrEqualTo value: Any) -> Query {
        whereFilter(.whereField(path, isGreaterThanOrEqualTo: value))
    }
    /// The array field contains `value`, by ``FieldPath``.
    public func whereField(_ path: FieldPath, arrayContains value: Any) -> Query {
        whereFilter(.whereField(path, arrayContains: value))
    }
    /// The array field contains any of `values` (at most 30), by ``FieldPath``.
    public func whereField(_ path: FieldPath, arrayContainsAny values: [Any]) -> Query {
        whereFilter(.whereField(path, arrayContainsAny: values))
    }
    /// The field equals one of `values`, by ``FieldPath``.
    public func whereField(_ path: FieldPath, in values: [Any]) -> Query { whereFilter(.whereField(path, in: values)) }
    /// The field equals none of `values`, by ``FieldPath``.
    public func whereField(_ path: FieldPath, notIn values: [Any]) -> Query {
        whereFilter(.whereField(path, notIn: values))
    }

    // MARK: Order and limits

    /// Orders by a field (dotted path), ascending unless `descending`.
    public func order(by field: String, descending: Bool = false) -> Query {
        guard let path = try? FieldPath.parse(field) else {
            return with {
                $0.startAt = .failure(FirestoreErrorCode(.invalidArgument, "Invalid field path \"\(field)\"."))
            }
        }
        return order(by: path, descending: descending)
    }

    /// Orders by a ``FieldPath``.
    public func order(by path: FieldPath, descending: Bool = false) -> Query {
        with { $0.orders.append(QueryOrder(field: path.core, descending: descending)) }
    }

    /// Returns at most the first `limit` results.
    public func limit(to limit: Int) -> Query {
        with {
            $0.limit = limit
            $0.limitToLast = false
        }
    }

    /// Returns at most the last `limit` results (still in query order). Needs an ``order(by:descending:)``.
    public func limit(toLast limit: Int) -> Query {
        with {
            $0.limit = limit
            $0.limitToLast = true
        }
    }

    // MARK: Cursors

    /// Starts at the given order-by values (inclusive).
    public func start(at fieldValues: [Any]) -> Query {
        with { $0.startAt = $0.cursor(values: fieldValues, before: true) }
    }
    /// Starts after the given order-by values.
    public func start(after fieldValues: [Any]) -> Query {
        with { $0.startAt = $0.cursor(values: fieldValues, before: false) }
    }
    /// Ends at the given order-by values (inclusive).
    public func end(at fieldValues: [Any]) -> Query {
        with { $0.endAt = $0.cursor(values: fieldValues, before: false) }
    }
    /// Ends before the given order-by values.
    public func end(before fieldValues: [Any]) -> Query {
        with { $0.endAt = $0.cursor(values: fieldValues, before: true) }
    }
    /// Starts at a document (inclusive), by its values for every ordering and its name.
    public func start(atDocument document: DocumentSnapshot) -> Query {
        with { $0.startAt = $0.cursor(at: document, before: true) }
    }
    /// Starts after a document — the usual way to page.
    public func start(afterDocument document: DocumentSnapshot) -> Query {
        with { $0.startAt = $0.cursor(at: document, before: false) }
    }
    /// Ends at a document (inclusive).
    public func end(atDocument document: DocumentSnapshot) -> Query {
        with { $0.endAt = $0.cursor(at: document, before: false) }
    }
    /// Ends before a document.
    public func end(beforeDocument document: DocumentSnapshot) -> Query {
        with { $0.endAt = $0.cursor(at: document, before: true) }
    }

    // MARK: Running

    /// Runs the query on the server.
    /// - Parameter source: `.default` falls back to evaluating the query over the local cache when the server is
    ///   unreachable; `.cache` only evaluates it locally. Cached results carry `isFromCache == true`.
    public func getDocuments(source: FirestoreSource = .default) async throws -> QuerySnapshot {
        if source == .cache { return try cached() }
        do throws(FirestoreErrorCode) {
            return try await run(transaction: nil)
        } catch {
            guard source == .default, error.code == .unavailable else { throw error }
            return try cached()
        }
    }

    /// The query evaluated over the cached documents with HearthCore's matcher.
    private func cached() throws(FirestoreErrorCode) -> QuerySnapshot {
        var (documents, pending) = firestore.cache.query(try state.wireQuery())
        if state.limitToLast { documents.reverse() }
        let snapshots = documents.map {
            QueryDocumentSnapshot(
                reference: DocumentReference(firestore, $0.path), stored: $0,
                metadata: SnapshotMetadata(hasPendingWrites: pending.contains($0.path), isFromCache: true))
        }
        let anyPending = documents.contains { pending.contains($0.path) }
        return QuerySnapshot(
            query: self, documents: snapshots,
            metadata: SnapshotMetadata(hasPendingWrites: anyPending, isFromCache: true))
    }

    /// Completion-handler form of ``getDocuments(source:)``.
    public func getDocuments(
        source: FirestoreSource = .default, completion: @escaping (QuerySnapshot?, (any Error)?) -> Void
    ) {
        firestore.callbacks.complete(callbackQueueBound(completion)) { try await self.getDocuments(source: source) }
    }

    func run(transaction: String?) async throws(FirestoreErrorCode) -> QuerySnapshot {
        let query = try state.wireQuery()
        var body: [String: JSONValue] = ["structuredQuery": query.firestoreJSON(database: firestore.database)]
        if let transaction { body["transaction"] = .string(transaction) }
        let json = try await firestore.client.send("POST", path: query.parent, suffix: ":runQuery", body: .object(body))
        var documents: [QueryDocumentSnapshot] = []
        for entry in json.arrayValue ?? [] {
            guard let document = entry["document"] else { continue }
            let stored = try firestore.client.document(document)
            if transaction == nil { firestore.cache.put(stored) }
            documents.append(
                QueryDocumentSnapshot(reference: DocumentReference(firestore, stored.path), stored: stored))
        }
        if state.limitToLast { documents.reverse() }
        return QuerySnapshot(query: self, documents: documents)
    }

    /// The HearthCore form of this query, for local evaluation.
    var structuredQuery: StructuredQuery {
        get throws(FirestoreErrorCode) { try state.structured() }
    }
}

/// A collection — Hearth's `CollectionReference`; also a query over its documents.
public final class CollectionReference: Query, @unchecked Sendable {
    let resourcePath: ResourcePath

    init(_ firestore: Firestore, _ path: ResourcePath) {
        resourcePath = path
        super.init(firestore, QueryState(parent: path.parent, collectionID: path.lastSegment))
    }

    /// The collection ID.
    public var collectionID: String { resourcePath.lastSegment }
    /// The slash-separated path.
    public var path: String { resourcePath.description }
    /// The document holding this subcollection, or `nil` for a top-level collection.
    public var parent: DocumentReference? {
        resourcePath.segments.count > 1 ? DocumentReference(firestore, resourcePath.parent) : nil
    }

    /// A new document with a random 20-character ID (nothing is written yet).
    public func document() -> DocumentReference {
        DocumentReference(firestore, resourcePath.appending(AutoID.make()))
    }

    /// A document by relative path.
    public func document(_ documentPath: String) -> DocumentReference {
        let path = ResourcePath(segments: resourcePath.segments + Firestore.path(documentPath).segments)
        precondition(path.isDocument, "Invalid document path \"\(documentPath)\".")
        return DocumentReference(firestore, path)
    }

    /// Creates a document with a random ID and returns its reference once the server has acknowledged it.
    @discardableResult
    public func addDocument(data: [String: Any]) async throws -> DocumentReference {
        let reference = document()
        try await reference.setData(data)
        return reference
    }

    /// Completion-handler form of ``addDocument(data:)``; the reference is returned at once.
    @discardableResult
    public func addDocument(
        data: [String: Any], completion: (((any Error)?) -> Void)? = nil
    ) -> DocumentReference {
        let reference = document()
        reference.setData(data, completion: completion)
        return reference
    }
}

/// Random document IDs: 20 characters from 62, as Firestore's clients make them.
enum AutoID {
    static func make() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<20).map { _ in alphabet[Int(generator.next(upperBound: UInt64(alphabet.count)))] })
    }
}
