/// An ordered list of HTTP header fields.
///
/// Order and duplicates are kept exactly as received or added, because some headers (`Set-Cookie`, `Via`) are
/// legitimately repeated and their order matters. Lookups compare names ASCII-case-insensitively, as HTTP requires.
public struct HTTPHeaders: Sendable, Sequence, Equatable, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    /// One header field.
    public typealias Element = (name: String, value: String)

    var fields: [Element]

    /// An empty header list.
    public init() {
        fields = []
    }

    /// A header list holding `fields` in the given order.
    public init(_ fields: [(name: String, value: String)]) {
        self.fields = fields
    }

    /// A header list from a literal such as `[("Content-Type", "text/plain")]`.
    public init(arrayLiteral elements: (String, String)...) {
        fields = elements.map { (name: $0.0, value: $0.1) }
    }

    /// A header list from a literal such as `["Content-Type": "text/plain"]`, in source order.
    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { (name: $0.0, value: $0.1) }
    }

    /// The number of fields, counting duplicates.
    public var count: Int { fields.count }

    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }

    /// The value of the first field called `name` (any letter case), or `nil`.
    public subscript(name: String) -> String? {
        for field in fields where asciiCaseInsensitiveEquals(field.name, name) {
            return field.value
        }
        return nil
    }

    /// The values of every field called `name` (any letter case), in order.
    public func values(for name: String) -> [String] {
        fields.compactMap { asciiCaseInsensitiveEquals($0.name, name) ? $0.value : nil }
    }

    /// Whether a field called `name` (any letter case) is present.
    public func contains(_ name: String) -> Bool {
        fields.contains { asciiCaseInsensitiveEquals($0.name, name) }
    }

    /// Appends a field, keeping any existing fields with the same name.
    public mutating func add(name: String, value: String) {
        fields.append((name: name, value: value))
    }

    /// Appends every field of `other`, in order, keeping existing fields with the same names.
    public mutating func append(contentsOf other: HTTPHeaders) {
        fields.append(contentsOf: other.fields)
    }

    /// Replaces every field called `name` (any letter case) with a single field holding `value`.
    public mutating func replaceOrAdd(name: String, value: String) {
        remove(name: name)
        fields.append((name: name, value: value))
    }

    /// Removes every field called `name` (any letter case).
    public mutating func remove(name: String) {
        fields.removeAll { asciiCaseInsensitiveEquals($0.name, name) }
    }

    /// Iterates the fields in order.
    public func makeIterator() -> IndexingIterator<[Element]> {
        fields.makeIterator()
    }

    /// Two header lists are equal when they hold the same fields in the same order; names compare case-insensitively.
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        guard lhs.fields.count == rhs.fields.count else { return false }
        for (left, right) in zip(lhs.fields, rhs.fields)
        where !asciiCaseInsensitiveEquals(left.name, right.name) || left.value != right.value {
            return false
        }
        return true
    }
}

/// Compares two strings byte by byte, folding only ASCII letters, so no lowercased copies are allocated per lookup.
func asciiCaseInsensitiveEquals(_ lhs: String, _ rhs: String) -> Bool {
    var left = lhs.utf8.makeIterator()
    var right = rhs.utf8.makeIterator()
    while true {
        switch (left.next(), right.next()) {
        case (nil, nil):
            return true
        case let (l?, r?):
            if l != r && asciiLower(l) != asciiLower(r) { return false }
        default:
            return false
        }
    }
}

@inline(__always) private func asciiLower(_ byte: UInt8) -> UInt8 {
    (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
}
