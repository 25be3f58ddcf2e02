public import Hearth

/// A type that knows its collection — Ballcap's `Referencable`: the collection is named ``name`` at the root of the
/// default app's Firestore unless the type says otherwise.
public protocol Referencable {
    /// The collection's ID.
    static var name: String { get }
    /// The collection's path.
    static var path: String { get }
    /// The collection the type's documents live in.
    static var collectionReference: CollectionReference { get }
    /// The document the collection lives under, `nil` at the root.
    static var parent: DocumentReference? { get }
}

extension Referencable {
    /// The collection's path.
    public static var path: String { collectionReference.path }
    /// `Firestore.firestore().collection(name)`.
    public static var collectionReference: CollectionReference { Firestore.firestore().collection(name) }
    /// The document the collection lives under, `nil` at the root.
    public static var parent: DocumentReference? { collectionReference.parent }
}

/// A document's schema — Ballcap's `Modelable`: a `Codable` value with a default for every field, so a new
/// ``Object`` starts from `Model()`.
public protocol Modelable: Referencable, Equatable {
    /// The model with every field at its default.
    init()
}

extension Modelable {
    /// The type's name, lowercased (`Item` → `item`), as Ballcap names a model's collection.
    public static var name: String { String(describing: self).lowercased() }
}
