/// One Firestore field value: every type of Firestore's typed JSON (`nullValue` … `mapValue`).
///
/// Equality here is structural (`1` and `1.0` differ, NaN differs from itself); use ``Value/compare(_:_:)`` for
/// Firestore's value ordering and equivalence, where `1 == 1.0` and NaN equals NaN.
public enum Value: Sendable, Hashable {
    /// `nullValue`.
    case null
    /// `booleanValue`.
    case boolean(Bool)
    /// `integerValue`: a signed 64-bit integer (a string on the wire).
    case integer(Int64)
    /// `doubleValue`: an IEEE 754 double.
    case double(Double)
    /// `timestampValue`, microsecond precision when stored.
    case timestamp(Timestamp)
    /// `stringValue`: UTF-8 text.
    case string(String)
    /// `bytesValue`: raw bytes (base64 on the wire).
    case bytes([UInt8])
    /// `referenceValue`: a full document resource name, `projects/{p}/databases/{d}/documents/{path}`.
    case reference(String)
    /// `geoPointValue`.
    case geoPoint(latitude: Double, longitude: Double)
    /// `arrayValue`; an array never directly contains another array.
    case array([Value])
    /// `mapValue`.
    case map([String: Value])

    /// Firestore's type order: the rank of this value's type when values of different types are compared.
    public var typeOrder: Int {
        switch self {
        case .null: return 0
        case .boolean: return 1
        case .integer, .double: return 2
        case .timestamp: return 3
        case .string: return 4
        case .bytes: return 5
        case .reference: return 6
        case .geoPoint: return 7
        case .array: return 8
        case .map: return 9
        }
    }

    /// The map's fields, when this is a map.
    public var mapFields: [String: Value]? {
        if case .map(let fields) = self { return fields }
        return nil
    }

    /// The array's elements, when this is an array.
    public var arrayElements: [Value]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// Whether this is an integer or a double.
    public var isNumber: Bool { typeOrder == 2 }

    /// Whether this is null or NaN: values that only `==`, `!=` and the unary filters match. Firestore never
    /// matches them with `<`, `<=`, `>`, `>=`, nor as an element of an `IN`, `ARRAY_CONTAINS` or
    /// `ARRAY_CONTAINS_ANY` operand.
    public var isNullOrNaN: Bool { self == .null || isNaN }

    /// Whether this is `NaN`.
    public var isNaN: Bool {
        if case .double(let d) = self { return d.isNaN }
        return false
    }
}
