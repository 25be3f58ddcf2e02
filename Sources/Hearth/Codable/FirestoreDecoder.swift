import Foundation

extension Firestore {
    /// Decodes document data into `Decodable` values — Hearth's `Firestore.Decoder`.
    public struct Decoder: Sendable {
        /// Creates a decoder.
        public init() {}

        /// Decodes `data` (as ``DocumentSnapshot/data()`` returns it); `reference` fills ``DocumentID`` properties.
        public func decode<T: Decodable>(
            _ type: T.Type, from data: [String: Any], in reference: DocumentReference? = nil
        ) throws -> T {
            try decodeValue(T.self, from: data, context: DecodingContext(reference: reference), codingPath: [])
        }
    }
}

extension CodingUserInfoKey {
    /// The document ``Firestore/Decoder`` is decoding (its `in:` reference, as `DocumentSnapshot.data(as:)` passes
    /// it), so a type can find where its values belong — such as a file stored beside the document.
    public static let documentReference = CodingUserInfoKey(rawValue: "hearth.documentReference")!
}

/// What every nested decoder of one document shares.
struct DecodingContext {
    let reference: DocumentReference?
}

/// Reads values Firestore stores natively directly; everything else through `init(from:)`.
func decodeValue<T: Decodable>(
    _ type: T.Type, from value: Any, context: DecodingContext, codingPath: [any CodingKey]
) throws -> T {
    if let native = try nativeValue(type, from: value, codingPath: codingPath) { return native }
    return try T(from: ValueDecoder(value: value, context: context, codingPath: codingPath))
}

private func nativeValue<T>(_ type: T.Type, from value: Any, codingPath: [any CodingKey]) throws -> T? {
    func mismatch() -> DecodingError {
        .typeMismatch(
            T.self,
            .init(codingPath: codingPath, debugDescription: "Expected \(T.self), found \(Swift.type(of: value))."))
    }
    if T.self == Timestamp.self {
        guard let time = value as? Timestamp else { throw mismatch() }
        return time as? T
    }
    if T.self == Date.self {
        guard let time = value as? Timestamp else { throw mismatch() }
        return time.dateValue() as? T
    }
    if T.self == GeoPoint.self {
        guard let point = value as? GeoPoint else { throw mismatch() }
        return point as? T
    }
    if T.self == Data.self {
        guard let data = value as? Data else { throw mismatch() }
        return data as? T
    }
    if T.self == DocumentReference.self {
        guard let reference = value as? DocumentReference else { throw mismatch() }
        return reference as? T
    }
    if T.self == URL.self {
        guard let text = value as? String, let url = URL(string: text) else { throw mismatch() }
        return url as? T
    }
    return nil
}

/// The `Swift.Decoder` behind ``Firestore/Decoder``.
struct ValueDecoder: Swift.Decoder {
    let value: Any
    let context: DecodingContext
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { context.reference.map { [.documentReference: $0] } ?? [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard let map = value as? [String: Any] else {
            throw DecodingError.typeMismatch(
                [String: Any].self,
                .init(codingPath: codingPath, debugDescription: "Expected a map, found \(Swift.type(of: value))."))
        }
        return KeyedDecodingContainer(KeyedValueContainer<Key>(map: map, context: context, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard let list = value as? [Any] else {
            throw DecodingError.typeMismatch(
                [Any].self,
                .init(codingPath: codingPath, debugDescription: "Expected an array, found \(type(of: value))."))
        }
        return UnkeyedValueContainer(list: list, context: context, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueContainer(value: value, context: context, codingPath: codingPath)
    }
}

struct KeyedValueContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let map: [String: Any]
    let context: DecodingContext
    let codingPath: [any CodingKey]

    var allKeys: [Key] { map.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { map[key.stringValue] != nil }

    private func value(for key: Key) throws -> Any {
        guard let value = map[key.stringValue] else {
            throw DecodingError.keyNotFound(
                key, .init(codingPath: codingPath, debugDescription: "No field \"\(key.stringValue)\"."))
        }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool { map[key.stringValue] == nil || map[key.stringValue] is NSNull }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        if let idType = T.self as? any DocumentIDProtocol.Type {
            return try idType.init(reference: context.reference) as! T
        }
        return try decodeValue(T.self, from: try value(for: key), context: context, codingPath: codingPath + [key])
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        if let idType = T.self as? any DocumentIDProtocol.Type {
            return try idType.init(reference: context.reference) as? T
        }
        guard let value = map[key.stringValue], !(value is NSNull) else { return nil }
        return try decodeValue(T.self, from: value, context: context, codingPath: codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try ValueDecoder(value: try value(for: key), context: context, codingPath: codingPath + [key]).container(
            keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ValueDecoder(value: try value(for: key), context: context, codingPath: codingPath + [key])
            .unkeyedContainer()
    }

    func superDecoder() throws -> any Swift.Decoder {
        ValueDecoder(value: map["super"] ?? NSNull(), context: context, codingPath: codingPath)
    }

    func superDecoder(forKey key: Key) throws -> any Swift.Decoder {
        ValueDecoder(value: map[key.stringValue] ?? NSNull(), context: context, codingPath: codingPath + [key])
    }
}

struct UnkeyedValueContainer: UnkeyedDecodingContainer {
    let list: [Any]
    let context: DecodingContext
    let codingPath: [any CodingKey]
    var currentIndex = 0

    init(list: [Any], context: DecodingContext, codingPath: [any CodingKey]) {
        self.list = list
        self.context = context
        self.codingPath = codingPath
    }

    var count: Int? { list.count }
    var isAtEnd: Bool { currentIndex >= list.count }

    private mutating func next() throws -> Any {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                Any.self, .init(codingPath: codingPath, debugDescription: "The array has no element \(currentIndex)."))
        }
        defer { currentIndex += 1 }
        return list[currentIndex]
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, list[currentIndex] is NSNull else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decodeValue(T.self, from: try next(), context: context, codingPath: codingPath)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try ValueDecoder(value: try next(), context: context, codingPath: codingPath).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try ValueDecoder(value: try next(), context: context, codingPath: codingPath).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Swift.Decoder {
        ValueDecoder(value: try next(), context: context, codingPath: codingPath)
    }
}

struct SingleValueContainer: SingleValueDecodingContainer {
    let value: Any
    let context: DecodingContext
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool { value is NSNull }

    private func mismatch<T>(_ type: T.Type) -> DecodingError {
        .typeMismatch(
            T.self,
            .init(codingPath: codingPath, debugDescription: "Expected \(T.self), found \(Swift.type(of: value))."))
    }

    func decode(_ type: Bool.Type) throws -> Bool {
        guard let flag = value as? Bool else { throw mismatch(type) }
        return flag
    }

    func decode(_ type: String.Type) throws -> String {
        guard let text = value as? String else { throw mismatch(type) }
        return text
    }

    func decode(_ type: Double.Type) throws -> Double {
        if let number = value as? Double { return number }
        if let number = value as? Int { return Double(number) }
        if let number = value as? Int64 { return Double(number) }
        throw mismatch(type)
    }

    func decode(_ type: Float.Type) throws -> Float { Float(try decode(Double.self)) }

    private func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        if let number = value as? Int, let exact = I(exactly: number) { return exact }
        if let number = value as? Int64, let exact = I(exactly: number) { return exact }
        if let number = value as? UInt64, let exact = I(exactly: number) { return exact }
        if let number = value as? UInt, let exact = I(exactly: number) { return exact }
        if let number = value as? Double, let exact = I(exactly: number) { return exact }
        throw mismatch(type)
    }

    func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decodeValue(T.self, from: value, context: context, codingPath: codingPath)
    }
}
