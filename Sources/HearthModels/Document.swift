public import Hearth

/// A typed Firestore document: a `Model` value together with the reference it lives at and the times Hearth
/// records for it.
///
/// A `Document` is a value. A view that edits a copy (`var draft = todo; draft[\.title] = "…"`) changes only that
/// copy; nothing reaches the database, or any other view holding the document, until the copy is saved — so an edit
/// that is cancelled is simply dropped. Writes go through ``save()``, ``update()`` and ``delete()`` (or a
/// ``Batch``); reads through ``get(_:source:decoder:)`` and ``listen(_:decoder:)``, or a ``DocumentList`` for lists.
///
/// Besides the model's own fields, every document written by `save()` or `update()` carries `createdAt` and
/// `updatedAt` (``DocumentField``), set by the server's clock, so lists can be ordered by them.
public struct Document<Model: Codable & Sendable>: Sendable, Identifiable {
    /// Where the document lives.
    public let reference: DocumentReference
    /// The model.
    public var data: Model
    /// When the document was first saved (server time); `nil` until read back from the server.
    public internal(set) var createdAt: Timestamp?
    /// When the document was last saved or updated (server time); `nil` until read back from the server.
    public internal(set) var updatedAt: Timestamp?

    /// The document's path (`todos/abc`): unique even among the results of a collection-group query, where two
    /// documents may share an ID.
    public var id: String { reference.path }
    /// The last segment of the path.
    public var documentID: String { reference.documentID }

    /// A new document with a random ID in `collection` (nothing is written until ``save()``).
    public init(_ data: Model, in collection: CollectionReference) {
        self.init(data, reference: collection.document())
    }

    /// A document with the given ID in `collection` (nothing is written until ``save()``).
    public init(id: String, _ data: Model, in collection: CollectionReference) {
        self.init(data, reference: collection.document(id))
    }

    /// A document at `reference` holding `data` (nothing is written until ``save()``).
    public init(_ data: Model, reference: DocumentReference) {
        self.reference = reference
        self.data = data
    }

    /// Decodes an existing document's snapshot.
    /// - Throws: `notFound` when the snapshot has no data, or a `DecodingError` when it does not fit `Model`.
    public init(snapshot: DocumentSnapshot, decoder: Firestore.Decoder = Firestore.Decoder()) throws {
        self.init(try snapshot.data(as: Model.self, decoder: decoder), reference: snapshot.reference)
        createdAt = snapshot.get(DocumentField.createdAt) as? Timestamp
        updatedAt = snapshot.get(DocumentField.updatedAt) as? Timestamp
    }

    /// One property of the model: `todo[\.title]`, `todo[\.title] = "Buy milk"`.
    public subscript<Value>(keyPath: WritableKeyPath<Model, Value>) -> Value {
        get { data[keyPath: keyPath] }
        set { data[keyPath: keyPath] = newValue }
    }
}

extension Document: Equatable where Model: Equatable {
    /// Same location, same model and same recorded times.
    public static func == (lhs: Document, rhs: Document) -> Bool {
        lhs.reference == rhs.reference && lhs.data == rhs.data && lhs.createdAt == rhs.createdAt
            && lhs.updatedAt == rhs.updatedAt
    }
}

/// The fields Hearth's typed layer maintains on every document it writes, beside the model's own.
public enum DocumentField {
    /// The server time of the first ``Document/save()``.
    public static let createdAt = "createdAt"
    /// The server time of the latest ``Document/save()`` or ``Document/update()``.
    public static let updatedAt = "updatedAt"
}
