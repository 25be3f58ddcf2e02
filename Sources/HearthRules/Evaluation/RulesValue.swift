internal import HearthCore

/// A value inside rule evaluation: Firestore's rules types (`int`, `float`, `string`, `list`, `map`, `set`,
/// `timestamp`, `duration`, `path`, `latlng`, `bytes`, `map_diff`) and namespaces such as `math`.
enum RulesValue: Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case float(Double)
    case string(String)
    case bytes([UInt8])
    case timestamp(Timestamp)
    /// A duration in nanoseconds.
    case duration(Int64)
    /// Path segments without leading slash: `databases/(default)/documents/users/alice`.
    case path([String])
    case latlng(Double, Double)
    case list([RulesValue])
    case map([String: RulesValue])
    /// A set: elements are unique under rules equality.
    case set([RulesValue])
    /// The result of `map.diff(other)`.
    case mapDiff(old: [String: RulesValue], new: [String: RulesValue])
    /// A namespace of global functions (`math`, `timestamp`, `duration`, `latlng`, `hashing`).
    case namespace(String)
    /// A map whose fields are computed on demand (see ``RulesObject``).
    case object(any RulesObject)
    /// A field of `resource.data` in a list, which the query constrains but does not pin (see ``QueryProof``).
    case constrained(RulesFieldConstraint)

    /// This value with a lazy map turned into a plain one, for operations that need every field.
    var materialized: RulesValue {
        if case .object(let object) = self { return .map(object.materialize()) }
        return self
    }

    /// A map of which a list query knows only some fields (``QueryDataObject``): whole-map operations on it prove
    /// nothing.
    var isPartial: Bool {
        if case .object(let object) = self { return object.isPartial }
        return false
    }

    /// Whether this is a lazy map (``RulesObject``).
    var isObject: Bool {
        if case .object = self { return true }
        return false
    }

    /// The rules type name, as `is` and error messages use it.
    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "bool"
        case .int: "int"
        case .float: "float"
        case .string: "string"
        case .bytes: "bytes"
        case .timestamp: "timestamp"
        case .duration: "duration"
        case .path: "path"
        case .latlng: "latlng"
        case .list: "list"
        case .map: "map"
        case .set: "set"
        case .mapDiff: "map_diff"
        case .object: "map"
        case .namespace(let name): name
        case .constrained: "value constrained by the query"
        }
    }

    /// Converts a stored document value. References become paths, so `resource.data.owner == /databases/…` works.
    init(_ value: Value) {
        switch value {
        case .null: self = .null
        case .boolean(let b): self = .bool(b)
        case .integer(let i): self = .int(i)
        case .double(let d): self = .float(d)
        case .timestamp(let t): self = .timestamp(t)
        case .string(let s): self = .string(s)
        case .bytes(let b): self = .bytes(b)
        case .reference(let name):
            var segments = name.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            // `projects/p/databases/d/documents/…` → `databases/d/documents/…`, as rules paths are written.
            if segments.count >= 2 && segments[0] == "projects" { segments.removeFirst(2) }
            self = .path(segments)
        case .geoPoint(let latitude, let longitude): self = .latlng(latitude, longitude)
        case .array(let elements): self = .list(elements.map(RulesValue.init))
        case .map(let fields): self = .map(fields.mapValues(RulesValue.init))
        }
    }

    /// Converts a JSON value (ID token claims, test-case data).
    init(json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .integer(let i): self = .int(i)
        case .double(let d): self = .float(d)
        case .string(let s): self = .string(s)
        case .array(let elements): self = .list(elements.map(RulesValue.init(json:)))
        case .object(let fields): self = .map(fields.mapValues(RulesValue.init(json:)))
        }
    }

    /// Rules equality: `1 == 1.0`, structural for lists and maps, different types unequal.
    static func equal(_ a: RulesValue, _ b: RulesValue) -> Bool {
        // The common scalar cases first, without copying either side.
        if case .string(let x) = a, case .string(let y) = b { return x == y }
        if case .int(let x) = a, case .int(let y) = b { return x == y }
        switch (a, b) {
        // `request.auth != null` is the commonest comparison; answer it without building the map.
        case (.object, .null), (.null, .object): return false
        case (.object(let x), .object(let y)) where x === y: return true
        default: break
        }
        switch (a.materialized, b.materialized) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.int(let x), .int(let y)): return x == y
        case (.float(let x), .float(let y)): return x == y
        case (.int(let x), .float(let y)): return Double(x) == y
        case (.float(let x), .int(let y)): return x == Double(y)
        case (.string(let x), .string(let y)): return x == y
        case (.bytes(let x), .bytes(let y)): return x == y
        case (.timestamp(let x), .timestamp(let y)): return x == y
        case (.duration(let x), .duration(let y)): return x == y
        case (.path(let x), .path(let y)): return x == y
        case (.latlng(let a1, let o1), .latlng(let a2, let o2)): return a1 == a2 && o1 == o2
        case (.list(let x), .list(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { equal($0, $1) }
        case (.set(let x), .set(let y)):
            return x.count == y.count && x.allSatisfy { e in y.contains { equal(e, $0) } }
        case (.map(let x), .map(let y)):
            guard x.count == y.count else { return false }
            for (key, value) in x {
                guard let other = y[key], equal(value, other) else { return false }
            }
            return true
        default: return false
        }
    }

    /// Builds a set, dropping duplicates.
    static func makeSet(_ elements: [RulesValue]) -> RulesValue {
        var unique: [RulesValue] = []
        for element in elements where !unique.contains(where: { equal($0, element) }) { unique.append(element) }
        return .set(unique)
    }
}
