/// Firestore's per-document limits, computed the way Firestore documents its storage-size rules.
public enum DocumentLimits {
    /// The largest document, in Firestore's storage-size bytes (1 MiB).
    public static let maxDocumentBytes = 1_048_576
    /// The deepest nesting of maps and arrays below a top-level field (which is at depth 0), as Firestore counts.
    public static let maxDepth = 20

    /// Checks a document's size and nesting depth.
    /// - Throws: `INVALID_ARGUMENT` saying which limit was passed.
    public static func validate(fields: [String: Value], path: ResourcePath) throws(HearthError) {
        for (name, value) in fields {
            if depth(of: value) - 1 > maxDepth {
                throw .invalidArgument(
                    "Document \"\(path)\" has field \"\(name)\" nested deeper than \(maxDepth) levels of maps and arrays."
                )
            }
        }
        let size = documentSize(fields: fields, path: path)
        if size > maxDocumentBytes {
            throw .invalidArgument(
                "Document \"\(path)\" is \(size) bytes, more than the maximum of \(maxDocumentBytes) bytes (1 MiB).")
        }
    }

    /// The storage size of a document: its name, its fields, and 32 bytes of overhead.
    public static func documentSize(fields: [String: Value], path: ResourcePath) -> Int {
        nameSize(path.segments) + fieldsSize(fields) + 32
    }

    /// The nesting depth of a value (1 for a scalar).
    public static func depth(of value: Value) -> Int {
        switch value {
        case .array(let elements): return 1 + (elements.map(depth(of:)).max() ?? 0)
        case .map(let fields): return 1 + (fields.values.map(depth(of:)).max() ?? 0)
        default: return 1
        }
    }

    static func nameSize(_ segments: some Collection<String>) -> Int {
        segments.reduce(16) { $0 + $1.utf8.count + 1 }
    }

    static func fieldsSize(_ fields: [String: Value]) -> Int {
        fields.reduce(0) { $0 + $1.key.utf8.count + 1 + valueSize($1.value) }
    }

    static func valueSize(_ value: Value) -> Int {
        switch value {
        case .null, .boolean: return 1
        case .integer, .double, .timestamp: return 8
        case .string(let string): return string.utf8.count + 1
        case .bytes(let bytes): return bytes.count
        case .reference(let name): return nameSize(name.split(separator: "/").dropFirst(5).map(String.init))
        case .geoPoint: return 16
        case .array(let elements): return elements.reduce(0) { $0 + valueSize($1) }
        case .map(let fields): return fieldsSize(fields)
        }
    }
}
