import Foundation

extension Value {
    /// This value as Firestore typed JSON in memory (`{"integerValue": "5"}`), the same shape
    /// ``appendFirestoreJSON(to:)`` writes, so a query can be encoded as a ``JSONValue`` tree.
    var queryJSON: JSONValue {
        switch self {
        case .null: return ["nullValue": .null]
        case .boolean(let flag): return ["booleanValue": .bool(flag)]
        case .integer(let integer): return ["integerValue": .string(String(integer))]
        case .double(let double): return ["doubleValue": Self.doubleJSON(double)]
        case .timestamp(let timestamp): return ["timestampValue": .string(timestamp.rfc3339)]
        case .string(let string): return ["stringValue": .string(string)]
        case .bytes(let bytes): return ["bytesValue": .string(Data(bytes).base64EncodedString())]
        case .reference(let name): return ["referenceValue": .string(name)]
        case .geoPoint(let latitude, let longitude):
            return ["geoPointValue": ["latitude": Self.doubleJSON(latitude), "longitude": Self.doubleJSON(longitude)]]
        case .array(let elements):
            return elements.isEmpty
                ? ["arrayValue": [:]] : ["arrayValue": ["values": .array(elements.map(\.queryJSON))]]
        case .map(let fields):
            return fields.isEmpty
                ? ["mapValue": [:]] : ["mapValue": ["fields": .object(fields.mapValues(\.queryJSON))]]
        }
    }

    /// A double as proto3 JSON: a number, or `"NaN"`, `"Infinity"`, `"-Infinity"`.
    private static func doubleJSON(_ double: Double) -> JSONValue {
        if double.isNaN { return "NaN" }
        if double.isInfinite { return double < 0 ? "-Infinity" : "Infinity" }
        return .double(double)
    }
}
