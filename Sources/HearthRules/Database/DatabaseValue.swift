internal import HearthCore

/// A value inside Realtime Database rule evaluation.
enum DatabaseValue {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case regex(String)
    /// A JSON object or array from `auth.token` or `val()`.
    case json(JSONValue)
    /// `data`, `newData` or `root` at a path: a rule snapshot.
    case snapshot(after: Bool, path: [String])

    init(_ json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .integer(let i): self = .number(Double(i))
        case .double(let d): self = .number(d)
        case .string(let s): self = .string(s)
        case .array, .object: self = .json(json)
        }
    }

    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .regex: "regex"
        case .json: "object"
        case .snapshot: "snapshot"
        }
    }

    /// `===`: same type and value (objects compare structurally).
    static func equal(_ a: DatabaseValue, _ b: DatabaseValue) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case (.bool(let x), .bool(let y)): x == y
        case (.number(let x), .number(let y)): x == y
        case (.string(let x), .string(let y)): x == y
        case (.json(let x), .json(let y)): x == y
        default: false
        }
    }
}
