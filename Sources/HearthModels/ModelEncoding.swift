import Foundation
import Hearth

/// Encodes models for writing: `Firestore.Encoder`, then the markers left by ``Incrementable`` and ``ArrayField``
/// turned into the `FieldValue`s they stand for.
///
/// The markers exist because a property's `encode(to:)` can only produce plain values: the SDK's encoder has no
/// public way to emit a sentinel, so these types encode a one-key map that is recognised and replaced here.
enum ModelEncoding {
    /// The key of a marker map; the value names the operation, ``operandKey`` holds its argument.
    static let markerKey = "__hearth_models_field_value__"
    static let operandKey = "operand"

    /// The operations a marker can stand for.
    enum Operation: String, Codable {
        case increment, arrayUnion, arrayRemove
    }

    /// The document fields for `model`, with every marker replaced by its `FieldValue`.
    static func fields(_ model: some Encodable) throws -> [String: Any] {
        try Firestore.Encoder().encode(model).mapValues(resolve)
    }

    private static func resolve(_ value: Any) throws -> Any {
        guard let map = value as? [String: Any] else { return value }
        guard let name = map[markerKey] as? String else { return try map.mapValues(resolve) }
        let operand = map[operandKey]
        switch Operation(rawValue: name) {
        case .increment:
            switch operand {
            case let number as Int: return FieldValue.increment(number)
            case let number as Int64: return FieldValue.increment(number)
            case let number as Double: return FieldValue.increment(number)
            default: break
            }
        case .arrayUnion:
            if let elements = operand as? [Any] { return FieldValue.arrayUnion(elements) }
        case .arrayRemove:
            if let elements = operand as? [Any] { return FieldValue.arrayRemove(elements) }
        case nil:
            break
        }
        throw EncodingError.invalidValue(
            value, .init(codingPath: [], debugDescription: "Malformed \(name) field-value marker."))
    }

    /// Writes a marker for `operation` with `operand` into `encoder`.
    static func encodeMarker(
        _ operation: Operation, operand: some Encodable, to encoder: any Encoder
    ) throws {
        var container = encoder.container(keyedBy: MarkerKey.self)
        try container.encode(operation, forKey: .marker)
        try container.encode(operand, forKey: .operand)
    }

    private enum MarkerKey: String, CodingKey {
        case marker = "__hearth_models_field_value__"
        case operand
    }
}
