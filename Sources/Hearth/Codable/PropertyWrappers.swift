import Foundation

/// Internal hook: ``DocumentID`` values are made from the document reference, never read from fields.
protocol DocumentIDProtocol {
    init(reference: DocumentReference?) throws
}

/// What a ``DocumentID`` property may hold: the ID as a `String`, or the whole ``DocumentReference``.
public protocol DocumentIDWrappable: Sendable {
    /// The value for `reference`.
    static func wrap(_ reference: DocumentReference) -> Self
}

extension String: DocumentIDWrappable {
    /// The document's ID.
    public static func wrap(_ reference: DocumentReference) -> String { reference.documentID }
}

extension DocumentReference: DocumentIDWrappable {
    /// The reference itself.
    public static func wrap(_ reference: DocumentReference) -> Self {
        // DocumentReference is final, so `Self` is DocumentReference.
        reference as! Self
    }
}

/// Marks the property that receives the document's ID when decoding with ``Firestore/Decoder`` (or
/// ``DocumentSnapshot/data(as:)``); it is never written as a field — Hearth's `@DocumentID`.
@propertyWrapper
public struct DocumentID<Value: DocumentIDWrappable>: Sendable, Codable, DocumentIDProtocol {
    /// The ID (or reference); `nil` for a value not read from the database.
    public var wrappedValue: Value?

    /// Creates an empty ID; the decoder fills it.
    public init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

    init(reference: DocumentReference?) throws {
        wrappedValue = reference.map { Value.wrap($0) }
    }

    /// Outside ``Firestore/Decoder`` there is no reference, so the ID stays `nil`.
    public init(from decoder: any Swift.Decoder) throws { wrappedValue = nil }

    /// Writes nothing: the ID is the document's name, not a field.
    public func encode(to encoder: any Swift.Encoder) throws {}
}

extension DocumentID: Equatable where Value: Equatable {}
extension DocumentID: Hashable where Value: Hashable {}

/// A timestamp the server fills in when the property is `nil` at write time — Hearth's `@ServerTimestamp`.
/// Works with ``Timestamp`` and `Date`.
@propertyWrapper
public struct ServerTimestamp<Value: Codable & Sendable>: Sendable, Codable {
    /// The time, or `nil` before the server set it.
    public var wrappedValue: Value?

    /// Creates the property.
    public init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

    /// Reads the stored time, or `nil` when the field is missing or null.
    public init(from decoder: any Swift.Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
    }

    /// Writes the time, or the server-timestamp sentinel when `nil`.
    public func encode(to encoder: any Swift.Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue {
            try container.encode(wrappedValue)
        } else if let box = container as? SingleBoxContainer {
            box.encodeSentinel(.serverTimestamp())
        } else {
            try container.encodeNil()
        }
    }
}

extension ServerTimestamp: Equatable where Value: Equatable {}
extension ServerTimestamp: Hashable where Value: Hashable {}

/// An optional written as `null` when `nil`, instead of being left out — Hearth's `@ExplicitNull`.
@propertyWrapper
public struct ExplicitNull<Value: Codable & Sendable>: Sendable, Codable {
    /// The value.
    public var wrappedValue: Value?

    /// Creates the property.
    public init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

    /// Reads the value, `nil` for null.
    public init(from decoder: any Swift.Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
    }

    /// Writes the value or `null`.
    public func encode(to encoder: any Swift.Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}

extension ExplicitNull: Equatable where Value: Equatable {}
extension ExplicitNull: Hashable where Value: Hashable {}

extension KeyedDecodingContainer {
    /// A missing field decodes as an empty ``DocumentID`` instead of failing (Firestore's decoder fills it).
    public func decode<Value>(_ type: DocumentID<Value>.Type, forKey key: Key) throws -> DocumentID<Value> {
        try decodeIfPresent(type, forKey: key) ?? DocumentID(wrappedValue: nil)
    }

    /// A missing field decodes as a `nil` ``ServerTimestamp``.
    public func decode<Value>(_ type: ServerTimestamp<Value>.Type, forKey key: Key) throws -> ServerTimestamp<Value> {
        try decodeIfPresent(type, forKey: key) ?? ServerTimestamp(wrappedValue: nil)
    }

    /// A missing field decodes as a `nil` ``ExplicitNull``.
    public func decode<Value>(_ type: ExplicitNull<Value>.Type, forKey key: Key) throws -> ExplicitNull<Value> {
        try decodeIfPresent(type, forKey: key) ?? ExplicitNull(wrappedValue: nil)
    }
}

extension DocumentSnapshot {
    /// Decodes the document into `T`, filling its ``DocumentID`` property.
    /// - Throws: `DecodingError` when the data does not fit `T`, or ``FirestoreErrorCode/Code/notFound`` when the
    ///   document does not exist.
    public func data<T: Decodable>(as type: T.Type, decoder: Firestore.Decoder = Firestore.Decoder()) throws -> T {
        guard let data = data() else {
            throw FirestoreErrorCode(.notFound, "Document \(reference.path) does not exist.")
        }
        return try decoder.decode(type, from: data, in: reference)
    }
}

// The Codable writes have Firebase's shapes exactly: synchronous and throwing (encoding errors), with an optional
// completion that runs when the server acknowledged the write. An `async` overload would be preferred inside `async`
// functions and break Firebase code that calls `try ref.setData(from:)` there without `await`.

extension DocumentReference {
    /// Encodes `value` and replaces the document with it. The write is queued and visible locally at once;
    /// `completion` runs when the server acknowledged it (see docs/sdk.md, "When a write completes").
    /// - Throws: `EncodingError` when `value` cannot be encoded; nothing is written then.
    public func setData<T: Encodable>(
        from value: T, encoder: Firestore.Encoder = Firestore.Encoder(),
        completion: (((any Error)?) -> Void)? = nil
    ) throws {
        setData(try encoder.encode(value), completion: completion)
    }

    /// Encodes `value` and writes it, merging when `merge` is set.
    public func setData<T: Encodable>(
        from value: T, merge: Bool, encoder: Firestore.Encoder = Firestore.Encoder(),
        completion: (((any Error)?) -> Void)? = nil
    ) throws {
        setData(try encoder.encode(value), merge: merge, completion: completion)
    }
}

extension CollectionReference {
    /// Encodes `value` into a new document with a random ID and returns its reference at once; the write is queued
    /// and visible locally at once, and `completion` runs when the server acknowledged it.
    /// - Throws: `EncodingError` when `value` cannot be encoded; nothing is written then.
    @discardableResult
    public func addDocument<T: Encodable>(
        from value: T, encoder: Firestore.Encoder = Firestore.Encoder(),
        completion: (((any Error)?) -> Void)? = nil
    ) throws -> DocumentReference {
        addDocument(data: try encoder.encode(value), completion: completion)
    }
}

extension WriteBatch {
    /// Encodes `value` and replaces the document with it when the batch commits.
    @discardableResult
    public func setData<T: Encodable>(
        from value: T, forDocument document: DocumentReference, encoder: Firestore.Encoder = Firestore.Encoder()
    ) throws -> WriteBatch {
        setData(try encoder.encode(value), forDocument: document)
    }
}

extension Transaction {
    /// Encodes `value` and replaces the document with it when the transaction commits.
    @discardableResult
    public func setData<T: Encodable>(
        from value: T, forDocument document: DocumentReference, encoder: Firestore.Encoder = Firestore.Encoder()
    ) throws -> Transaction {
        setData(try encoder.encode(value), forDocument: document)
    }
}
