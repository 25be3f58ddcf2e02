/// A path to a field inside a document: `address.city`, or with back-quoted segments `` `first.name`.x ``.
public struct FieldPath: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The field names, outermost first.
    public let segments: [String]

    /// The document-name pseudo field, `__name__`.
    public static let documentName = FieldPath(segments: ["__name__"])

    /// A path from field names; none may be empty.
    public init(segments: [String]) {
        self.segments = segments
    }

    /// Parses a dotted field path, where a segment that is not a simple identifier is quoted with back-ticks
    /// (and back-ticks or backslashes inside it are escaped with a backslash).
    /// - Throws: `INVALID_ARGUMENT` saying what is wrong and where.
    public init(parsing text: String) throws(HearthError) {
        var segments: [String] = []
        var current: [UInt8] = []
        var quoted = false
        var inQuotes = false
        var bytes = Array(text.utf8)[...]
        func invalid(_ reason: String) -> HearthError {
            .invalidArgument("Invalid field path \"\(text.prefix(200))\": \(reason).")
        }
        guard !bytes.isEmpty else { throw invalid("a field path cannot be empty") }
        while let byte = bytes.popFirst() {
            if inQuotes {
                if byte == UInt8(ascii: "\\") {
                    guard let escaped = bytes.popFirst() else { throw invalid("it ends inside an escape") }
                    current.append(escaped)
                } else if byte == UInt8(ascii: "`") {
                    inQuotes = false
                } else {
                    current.append(byte)
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "`"):
                guard current.isEmpty, !quoted else { throw invalid("a back-tick may only open a segment") }
                inQuotes = true
                quoted = true
            case UInt8(ascii: "."):
                guard !current.isEmpty || quoted else { throw invalid("it has an empty segment") }
                segments.append(String(decoding: current, as: UTF8.self))
                current = []
                quoted = false
            default:
                guard !quoted else { throw invalid("characters follow a closing back-tick") }
                guard Self.isSimple(byte, first: current.isEmpty) else {
                    throw invalid(
                        "a segment that is not a simple name (letters, digits, _; not starting with a digit) must be quoted with back-ticks"
                    )
                }
                current.append(byte)
            }
        }
        guard !inQuotes else { throw invalid("a back-quoted segment is not closed") }
        guard !current.isEmpty || quoted else { throw invalid("it has an empty segment") }
        segments.append(String(decoding: current, as: UTF8.self))
        for segment in segments where segment.isEmpty {
            throw invalid("it has an empty segment")
        }
        self.init(segments: segments)
    }

    /// The canonical text: simple identifiers bare, everything else back-quoted.
    public var description: String {
        // Every index entry of every write names its field: a top-level field is its own segment, usually as is.
        if segments.count == 1 { return Self.quoteIfNeeded(segments[0]) }
        return segments.map(Self.quoteIfNeeded).joined(separator: ".")
    }

    /// Whether `other` equals this path or lies inside it (`a` is a prefix of `a.b`).
    public func isPrefix(of other: FieldPath) -> Bool {
        other.segments.count >= segments.count && Array(other.segments.prefix(segments.count)) == segments
    }

    /// Segment by segment, each by its UTF-8 bytes; a path orders before the longer paths it begins.
    public static func < (lhs: FieldPath, rhs: FieldPath) -> Bool {
        for (a, b) in zip(lhs.segments, rhs.segments) where a != b {
            return Value.compareBytes(a.utf8, b.utf8) < 0
        }
        return lhs.segments.count < rhs.segments.count
    }

    /// Whether a byte may appear unquoted in a segment: ASCII letters, `_`, and digits after the first byte.
    private static func isSimple(_ byte: UInt8, first: Bool) -> Bool {
        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || byte == 0x5F
            || (!first && byte >= 0x30 && byte <= 0x39)
    }

    /// One segment as it reads in a path's text: as is when simple, otherwise in backquotes with `` ` `` and `\`
    /// escaped.
    static func quoteIfNeeded(_ segment: String) -> String {
        var first = true
        var simple = true
        for byte in segment.utf8 {
            guard isSimple(byte, first: first) else {
                simple = false
                break
            }
            first = false
        }
        if simple && !first { return segment }
        var quoted = "`"
        for character in segment {
            if character == "`" || character == "\\" { quoted.append("\\") }
            quoted.append(character)
        }
        return quoted + "`"
    }
}

extension Dictionary where Key == String, Value == HearthCore.Value {
    /// The value at a field path, if every segment along it exists (maps only).
    public func value(at path: FieldPath) -> HearthCore.Value? {
        var fields = self
        for (index, segment) in path.segments.enumerated() {
            guard let value = fields[segment] else { return nil }
            if index == path.segments.count - 1 { return value }
            guard case .map(let inner) = value else { return nil }
            fields = inner
        }
        return nil
    }

    /// Sets the value at a field path, replacing any non-map value along the way with a map.
    public mutating func setValue(_ value: HearthCore.Value, at path: FieldPath) {
        Self.set(value, at: path.segments[...], in: &self)
    }

    /// Removes the value at a field path; a missing path is not an error.
    public mutating func removeValue(at path: FieldPath) {
        Self.remove(at: path.segments[...], in: &self)
    }

    private static func set(_ value: HearthCore.Value, at segments: ArraySlice<String>, in fields: inout Self) {
        let head = segments.first!
        if segments.count == 1 {
            fields[head] = value
            return
        }
        var inner = fields[head]?.mapFields ?? [:]
        fields[head] = nil  // keep the inner dictionary uniquely referenced while it is mutated
        set(value, at: segments.dropFirst(), in: &inner)
        fields[head] = .map(inner)
    }

    private static func remove(at segments: ArraySlice<String>, in fields: inout Self) {
        let head = segments.first!
        if segments.count == 1 {
            fields[head] = nil
            return
        }
        guard var inner = fields[head]?.mapFields else { return }
        fields[head] = nil
        remove(at: segments.dropFirst(), in: &inner)
        fields[head] = .map(inner)
    }
}
