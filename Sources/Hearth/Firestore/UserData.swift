import Foundation
import HearthCore

/// Converts between the `Any` values apps pass (`[String: Any]`, Firebase's shape) and HearthCore's `Value`.
enum UserData {
    /// One user value as a `Value`. Sentinels (`FieldValue`) are not values and are rejected here; the write
    /// builder takes them out first.
    static func value(_ any: Any) throws(FirestoreErrorCode) -> Value {
        switch any {
        case let value as Value: return value
        case is NSNull: return .null
        case let flag as Bool: return .boolean(flag)
        case let text as String: return .string(text)
        case let number as Int: return .integer(Int64(number))
        case let number as Int64: return .integer(number)
        case let number as Int32: return .integer(Int64(number))
        case let number as Int16: return .integer(Int64(number))
        case let number as Int8: return .integer(Int64(number))
        case let number as UInt8: return .integer(Int64(number))
        case let number as UInt16: return .integer(Int64(number))
        case let number as UInt32: return .integer(Int64(number))
        case let number as UInt:
            guard let exact = Int64(exactly: number) else { throw tooLarge(number) }
            return .integer(exact)
        case let number as UInt64:
            guard let exact = Int64(exactly: number) else { throw tooLarge(number) }
            return .integer(exact)
        case let number as Double: return .double(number)
        case let number as Float: return .double(Double(number))
        case let number as NSNumber: return numberValue(number)
        case let time as Timestamp: return .timestamp(time.core)
        case let date as Date: return .timestamp(Timestamp(date: date).core.truncatedToMicroseconds)
        case let point as GeoPoint: return .geoPoint(latitude: point.latitude, longitude: point.longitude)
        case let reference as DocumentReference: return .reference(reference.resourceName)
        case let data as Data: return .bytes(Array(data))
        case let array as [Any]:
            var values: [Value] = []
            values.reserveCapacity(array.count)
            for element in array {
                if element is [Any] {
                    throw FirestoreErrorCode(.invalidArgument, "Nested arrays are not supported.")
                }
                values.append(try value(element))
            }
            return .array(values)
        case let map as [String: Any]:
            var fields: [String: Value] = [:]
            for (key, element) in map { fields[key] = try value(element) }
            return .map(fields)
        case is FieldValue:
            throw FirestoreErrorCode(
                .invalidArgument, "FieldValue sentinels can only be used as field values in setData/updateData.")
        default:
            if let optional = any as? any OptionalProtocol, optional.isNone { return .null }
            throw FirestoreErrorCode(.invalidArgument, "Unsupported type: \(type(of: any)).")
        }
    }

    /// Each element as a `Value`.
    static func values(_ elements: [Any]) throws(FirestoreErrorCode) -> [Value] {
        var values: [Value] = []
        for element in elements { values.append(try value(element)) }
        return values
    }

    private static func tooLarge(_ number: some BinaryInteger) -> FirestoreErrorCode {
        FirestoreErrorCode(.invalidArgument, "Integer \(number) does not fit a 64-bit signed integer.")
    }

    private static func numberValue(_ number: NSNumber) -> Value {
        // Foundation numbers from JSONSerialization or Objective-C: keep integers integral and booleans boolean.
        let type = String(cString: number.objCType)
        if type == "c" || type == "B" { return .boolean(number.boolValue) }
        if type == "f" || type == "d" { return .double(number.doubleValue) }
        return .integer(number.int64Value)
    }

    /// A `Value` as the `Any` Firebase hands apps: `Int`, `Double`, `String`, `Bool`, `NSNull`, `Timestamp`,
    /// `GeoPoint`, `Data`, `DocumentReference`, `[Any]`, `[String: Any]`.
    static func any(_ value: Value, firestore: Firestore) -> Any {
        switch value {
        case .null: return NSNull()
        case .boolean(let flag): return flag
        case .integer(let number): return Int(truncatingIfNeeded: number)
        case .double(let number): return number
        case .timestamp(let time): return Timestamp(core: time)
        case .string(let text): return text
        case .bytes(let bytes): return Data(bytes)
        case .reference(let name):
            if let path = try? firestore.database.path(fromName: name) { return DocumentReference(firestore, path) }
            return name
        case .geoPoint(let latitude, let longitude): return GeoPoint(latitude: latitude, longitude: longitude)
        case .array(let elements): return elements.map { any($0, firestore: firestore) }
        case .map(let fields): return fields.mapValues { any($0, firestore: firestore) }
        }
    }
}

/// Lets `UserData` recognise a `nil` wrapped in `Any`.
protocol OptionalProtocol {
    var isNone: Bool { get }
}

extension Optional: OptionalProtocol {
    var isNone: Bool {
        if case .none = self { return true }
        if case .some(let wrapped) = self, let inner = wrapped as? any OptionalProtocol { return inner.isNone }
        return false
    }
}
