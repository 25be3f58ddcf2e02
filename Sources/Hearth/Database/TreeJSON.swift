import Foundation
import HearthCore

/// Converts between app values (`Any`, as Firebase takes them) and JSON.
enum TreeJSON {
    static func json(_ any: Any?) throws(FirestoreErrorCode) -> JSONValue {
        guard let any else { return .null }
        switch any {
        case is NSNull: return .null
        case let flag as Bool: return .bool(flag)
        case let text as String: return .string(text)
        case let number as Int: return .integer(Int64(number))
        case let number as Int64: return .integer(number)
        case let number as Int32: return .integer(Int64(number))
        case let number as Double: return .double(number)
        case let number as Float: return .double(Double(number))
        case let number as NSNumber:
            let type = String(cString: number.objCType)
            if type == "c" || type == "B" { return .bool(number.boolValue) }
            if type == "f" || type == "d" { return .double(number.doubleValue) }
            return .integer(number.int64Value)
        case let list as [Any]:
            var items: [JSONValue] = []
            for item in list { items.append(try json(item)) }
            return .array(items)
        case let map as [String: Any]:
            var members: [String: JSONValue] = [:]
            for (key, value) in map { members[key] = try json(value) }
            return .object(members)
        case let map as [AnyHashable: Any]:
            var members: [String: JSONValue] = [:]
            for (key, value) in map {
                guard let key = key.base as? String else {
                    throw FirestoreErrorCode(.invalidArgument, "Tree keys must be strings.")
                }
                members[key] = try json(value)
            }
            return .object(members)
        default:
            if let optional = any as? any OptionalProtocol, optional.isNone { return .null }
            throw FirestoreErrorCode(.invalidArgument, "Unsupported tree value type: \(type(of: any)).")
        }
    }

    /// JSON as Firebase hands it to apps: `NSNull` never appears (absent values are `nil`), arrays stay arrays.
    static func any(_ json: JSONValue) -> Any? {
        switch json {
        case .null: return nil
        case .bool(let flag): return flag
        case .integer(let number): return Int(truncatingIfNeeded: number)
        case .double(let number): return number
        case .string(let text): return text
        case .array(let items): return items.map { any($0) ?? NSNull() }
        case .object(let members): return members.compactMapValues { any($0) }
        }
    }

    /// Orders values as the tree does: null, false, true, numbers, strings, objects.
    static func compare(_ lhs: JSONValue?, _ rhs: JSONValue?) -> Int {
        func rank(_ value: JSONValue?) -> Int {
            switch value {
            case nil, .null?: return 0
            case .bool(false)?: return 1
            case .bool(true)?: return 2
            case .integer?, .double?: return 3
            case .string?: return 4
            default: return 5
            }
        }
        let (left, right) = (rank(lhs), rank(rhs))
        if left != right { return left < right ? -1 : 1 }
        switch (lhs, rhs) {
        case (let l?, let r?) where left == 3:
            let a = l.doubleValue ?? 0
            let b = r.doubleValue ?? 0
            return a == b ? 0 : a < b ? -1 : 1
        case (.string(let a)?, .string(let b)?): return a == b ? 0 : a < b ? -1 : 1
        default: return 0
        }
    }

    /// Orders keys as the tree does: 32-bit integer keys numerically first, then strings.
    static func compareKeys(_ a: String, _ b: String) -> Int {
        switch (Int32(a), Int32(b)) {
        case (let x?, let y?): return x == y ? 0 : x < y ? -1 : 1
        case (.some, nil): return -1
        case (nil, .some): return 1
        default: return a == b ? 0 : a < b ? -1 : 1
        }
    }
}
