import Foundation

extension Firestore {
    /// Encodes `Encodable` values into Firestore document data — Hearth's `Firestore.Encoder`.
    ///
    /// `Timestamp`, `Date`, `GeoPoint`, `Data` and `DocumentReference` are stored as themselves; `nil` optionals are
    /// left out (use ``ExplicitNull`` to write `null`); ``DocumentID`` properties are not written; a `nil`
    /// ``ServerTimestamp`` becomes `FieldValue.serverTimestamp()`.
    public struct Encoder: Sendable {
        /// Creates an encoder.
        public init() {}

        /// The document data for `value`, which must encode as a keyed container.
        public func encode<T: Encodable>(_ value: T) throws -> [String: Any] {
            let box = EncodingBox()
            try encodeValue(value, into: box, codingPath: [])
            guard let map = box.resolve() as? [String: Any] else {
                throw FirestoreErrorCode(
                    .invalidArgument, "\(T.self) must encode as a keyed container (a struct or class).")
            }
            return map
        }
    }
}

/// A node of the tree being encoded; containers hold child boxes so nested containers can fill them later.
final class EncodingBox {
    enum Content {
        case unset
        case leaf(Any)
        case map([String: EncodingBox])
        case list([EncodingBox])
    }

    var content = Content.unset

    func resolve() -> Any {
        switch content {
        case .unset: return [String: Any]()
        case .leaf(let value): return value
        case .map(let children): return children.mapValues { $0.resolve() }
        case .list(let children): return children.map { $0.resolve() }
        }
    }

    func child(forKey key: String) -> EncodingBox {
        var children: [String: EncodingBox] = [:]
        if case .map(let existing) = content { children = existing }
        let box = EncodingBox()
        children[key] = box
        content = .map(children)
        return box
    }

    func appendChild() -> EncodingBox {
        var children: [EncodingBox] = []
        if case .list(let existing) = content { children = existing }
        let box = EncodingBox()
        children.append(box)
        content = .list(children)
        return box
    }

    func makeMap() {
        if case .map = content { return }
        content = .map([:])
    }

    func makeList() {
        if case .list = content { return }
        content = .list([])
    }
}

/// Stores values Firestore knows natively as leaves; everything else goes through its `encode(to:)`.
func encodeValue(_ value: some Encodable, into box: EncodingBox, codingPath: [any CodingKey]) throws {
    switch value {
    case let time as Timestamp: box.content = .leaf(time)
    case let date as Date: box.content = .leaf(Timestamp(date: date))
    case let point as GeoPoint: box.content = .leaf(point)
    case let data as Data: box.content = .leaf(data)
    case let reference as DocumentReference: box.content = .leaf(reference)
    case let sentinel as FieldValue: box.content = .leaf(sentinel)
    case let url as URL: box.content = .leaf(url.absoluteString)
    case let decimal as Decimal: box.content = .leaf(NSDecimalNumber(decimal: decimal).doubleValue)
    default: try value.encode(to: ValueEncoder(box: box, codingPath: codingPath))
    }
}

/// The `Swift.Encoder` behind ``Firestore/Encoder``.
struct ValueEncoder: Swift.Encoder {
    let box: EncodingBox
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        box.makeMap()
        return KeyedEncodingContainer(KeyedBoxContainer<Key>(box: box, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        box.makeList()
        return UnkeyedBoxContainer(box: box, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleBoxContainer(box: box, codingPath: codingPath)
    }
}

struct KeyedBoxContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let box: EncodingBox
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { box.child(forKey: key.stringValue).content = .leaf(NSNull()) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        // @DocumentID properties mirror the document's name and are never written as fields.
        if value is any DocumentIDProtocol { return }
        try encodeValue(value, into: box.child(forKey: key.stringValue), codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let child = box.child(forKey: key.stringValue)
        child.makeMap()
        return KeyedEncodingContainer(KeyedBoxContainer<NestedKey>(box: child, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = box.child(forKey: key.stringValue)
        child.makeList()
        return UnkeyedBoxContainer(box: child, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Swift.Encoder {
        ValueEncoder(box: box.child(forKey: "super"), codingPath: codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> any Swift.Encoder {
        ValueEncoder(box: box.child(forKey: key.stringValue), codingPath: codingPath + [key])
    }
}

struct UnkeyedBoxContainer: UnkeyedEncodingContainer {
    let box: EncodingBox
    let codingPath: [any CodingKey]

    var count: Int {
        if case .list(let children) = box.content { return children.count }
        return 0
    }

    mutating func encodeNil() throws { box.appendChild().content = .leaf(NSNull()) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try encodeValue(value, into: box.appendChild(), codingPath: codingPath)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        let child = box.appendChild()
        child.makeMap()
        return KeyedEncodingContainer(KeyedBoxContainer<NestedKey>(box: child, codingPath: codingPath))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let child = box.appendChild()
        child.makeList()
        return UnkeyedBoxContainer(box: child, codingPath: codingPath)
    }

    mutating func superEncoder() -> any Swift.Encoder { ValueEncoder(box: box.appendChild(), codingPath: codingPath) }
}

struct SingleBoxContainer: SingleValueEncodingContainer {
    let box: EncodingBox
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { box.content = .leaf(NSNull()) }
    mutating func encode(_ value: Bool) throws { box.content = .leaf(value) }
    mutating func encode(_ value: String) throws { box.content = .leaf(value) }
    mutating func encode(_ value: Double) throws { box.content = .leaf(value) }
    mutating func encode(_ value: Float) throws { box.content = .leaf(Double(value)) }
    mutating func encode(_ value: Int) throws { box.content = .leaf(value) }
    mutating func encode(_ value: Int8) throws { box.content = .leaf(Int64(value)) }
    mutating func encode(_ value: Int16) throws { box.content = .leaf(Int64(value)) }
    mutating func encode(_ value: Int32) throws { box.content = .leaf(Int64(value)) }
    mutating func encode(_ value: Int64) throws { box.content = .leaf(value) }
    mutating func encode(_ value: UInt) throws { box.content = .leaf(value) }
    mutating func encode(_ value: UInt8) throws { box.content = .leaf(Int64(value)) }
    mutating func encode(_ value: UInt16) throws { box.content = .leaf(Int64(value)) }
    mutating func encode(_ value: UInt32) throws { box.content = .leaf(Int64(value)) }
    mutating func encode(_ value: UInt64) throws { box.content = .leaf(value) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try encodeValue(value, into: box, codingPath: codingPath)
    }

    /// Lets ``ServerTimestamp`` store the sentinel, which is not itself `Encodable`.
    func encodeSentinel(_ sentinel: FieldValue) { box.content = .leaf(sentinel) }
}
