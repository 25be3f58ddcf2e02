public import Hearth

/// An ``Object`` holding a typed model — Ballcap's `DataRepresentable`. The model is optional, as in Ballcap: an
/// object made from a reference alone has no data until it is read.
@MainActor
public protocol DataRepresentable: AnyObject, Hashable {
    /// The document's schema.
    associatedtype Model: Modelable & Codable

    /// The model; `nil` until set or read.
    var data: Model? { get set }

    /// A new object with a random ID in the type's collection, holding `Model()`.
    init()
}

extension DataRepresentable where Self: Object {
    /// A new object with a random ID in the type's collection, holding `Model()` (nothing is written until
    /// ``save(reference:completion:)``).
    public init() {
        self.init(Self.collectionReference.document())
        data = Model()
    }

    /// A new object with a random ID in `collectionReference` (the type's collection when `nil`), holding `Model()`.
    public init(collectionReference: CollectionReference? = nil) {
        self.init((collectionReference ?? Self.collectionReference).document())
        data = Model()
    }

    /// An object with the given ID in `collectionReference` (the type's collection when `nil`), holding `Model()`.
    public init(id: String, collectionReference: CollectionReference? = nil) {
        self.init((collectionReference ?? Self.collectionReference).document(id))
        data = Model()
    }

    /// An object with the given ID holding `data`.
    public init(id: String, from data: Model, collectionReference: CollectionReference? = nil) {
        self.init((collectionReference ?? Self.collectionReference).document(id))
        self.data = data
    }

    /// An object at `documentReference` holding `data`.
    public init(documentReference: DocumentReference, from data: Model) {
        self.init(documentReference)
        self.data = data
    }

    /// An object at `documentReference` decoded from document fields (as `DocumentSnapshot.data()` returns them).
    /// - Throws: a `DecodingError` when the fields do not fit `Model`.
    public init(documentReference: DocumentReference, from data: [String: Any]) throws {
        self.init(documentReference)
        try read(data)
    }

    /// An object decoded from `snapshot`; a snapshot of a missing document leaves ``data`` `nil`.
    /// - Throws: a `DecodingError` when the document does not fit `Model`.
    public init(snapshot: DocumentSnapshot) throws {
        self.init(snapshot.reference)
        try apply(snapshot)
    }

    /// Takes `snapshot`'s data, `createdAt` and `updatedAt`.
    func apply(_ snapshot: DocumentSnapshot) throws {
        self.snapshot = snapshot
        guard let fields = snapshot.data() else { return }
        try read(fields)
    }

    private func read(_ fields: [String: Any]) throws {
        let model = try Firestore.Decoder().decode(Model.self, from: fields, in: documentReference)
        changeData {
            data = model
            if let time = fields[DocumentField.createdAt] as? Timestamp { createdAt = time }
            if let time = fields[DocumentField.updatedAt] as? Timestamp { updatedAt = time }
        }
    }

    /// One field of the model: `task[\.title]`, `task[\.title] = "Buy milk"`. An object without data reads the
    /// field's default (`Model()`'s) and gets `Model()` with the field set on its first write.
    public subscript<Value>(keyPath: WritableKeyPath<Model, Value>) -> Value {
        get {
            observeData()
            return (data ?? Model())[keyPath: keyPath]
        }
        set {
            changeData {
                var model = data ?? Model()
                model[keyPath: keyPath] = newValue
                data = model
            }
        }
    }

    /// A new object for the same document holding a copy of the data, for an editor to change without touching this
    /// one (Ballcap's `copy()`).
    public func copy() -> Self {
        let copy = Self(documentReference)
        copy.data = data
        copy.snapshot = snapshot
        copy.createdAt = createdAt
        copy.updatedAt = updatedAt
        return copy
    }
}
