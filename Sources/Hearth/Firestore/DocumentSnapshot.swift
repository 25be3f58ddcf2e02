import Foundation
import HearthCore

/// A document's contents at one moment — Hearth's `DocumentSnapshot`. ``exists`` is `false` and ``data()`` `nil` when
/// the document does not exist.
/// Not final: `QueryDocumentSnapshot` refines it, as in Firebase. Every stored property is an immutable Sendable value.
public class DocumentSnapshot: @unchecked Sendable {
    /// The document's reference.
    public let reference: DocumentReference
    /// Cache and pending-write state.
    public let metadata: SnapshotMetadata
    let stored: StoredDocument?

    init(reference: DocumentReference, stored: StoredDocument?, metadata: SnapshotMetadata = SnapshotMetadata()) {
        self.reference = reference
        self.stored = stored
        self.metadata = metadata
    }

    /// Whether the document exists.
    public var exists: Bool { stored != nil }
    /// The document ID.
    public var documentID: String { reference.documentID }

    /// The fields as Firebase hands them out (`Int`, `Double`, `String`, `Bool`, `NSNull`, ``Timestamp``, ``GeoPoint``,
    /// `Data`, ``DocumentReference``, arrays and maps), or `nil` when the document does not exist.
    public func data() -> [String: Any]? {
        guard let stored else { return nil }
        return stored.fields.mapValues { UserData.any($0, firestore: reference.firestore) }
    }

    /// One field by dotted path (`String`) or ``FieldPath``; `nil` when absent.
    public func get(_ field: Any) -> Any? {
        guard let stored, let path = try? FieldPath.from(field) else { return nil }
        if path.core == .documentName { return reference }
        return stored.fields.value(at: path.core).map { UserData.any($0, firestore: reference.firestore) }
    }

    /// One field by dotted path.
    public subscript(key: String) -> Any? { self.get(key) }

    /// The raw values, for the Codable decoder and query cursors.
    var fields: [String: Value]? { stored?.fields }
}

/// A snapshot of a document returned by a query, which therefore exists — Hearth's `QueryDocumentSnapshot`.
public final class QueryDocumentSnapshot: DocumentSnapshot, @unchecked Sendable {
    /// The fields; never `nil` for a query result.
    public override func data() -> [String: Any] { super.data() ?? [:] }
}

/// The result of a query — Hearth's `QuerySnapshot`.
public final class QuerySnapshot: Sendable {
    /// The query that produced it.
    public let query: Query
    /// The matching documents, in query order.
    public let documents: [QueryDocumentSnapshot]
    /// Cache and pending-write state.
    public let metadata: SnapshotMetadata

    /// How the results changed since the listener's previous snapshot (all `.added` for the first one).
    public let documentChanges: [DocumentChange]

    init(
        query: Query, documents: [QueryDocumentSnapshot], changes: [DocumentChange]? = nil,
        metadata: SnapshotMetadata = SnapshotMetadata()
    ) {
        self.query = query
        self.documents = documents
        self.metadata = metadata
        documentChanges =
            changes
            ?? documents.enumerated().map { index, document in
                DocumentChange(type: .added, document: document, oldIndex: UInt(NSNotFound), newIndex: UInt(index))
            }
    }

    /// The number of documents.
    public var count: Int { documents.count }
    /// Whether there are none.
    public var isEmpty: Bool { documents.isEmpty }
}
