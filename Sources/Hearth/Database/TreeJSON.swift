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

    /// The tree node a JSON value stands for, to order and filter it with HearthCore's `TreeQuery`: `null` and
    /// empty objects are no node, an array's elements are the children "0", "1", … (as the server stores arrays).
    /// Priorities are not kept locally, so a local node has none.
    static func node(_ json: JSONValue) -> TreeNode? {
        switch json {
        case .null: return nil
        case .object(let members): return .children(members.compactMapValues(node))
        case .array(let items):
            var children: [String: TreeNode] = [:]
            for (index, item) in items.enumerated() { children[String(index)] = node(item) }
            return .children(children)
        default: return TreeLeaf(json: json).map { .leaf($0) }
        }
    }
}
