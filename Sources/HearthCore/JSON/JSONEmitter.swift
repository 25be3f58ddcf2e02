/// Writes one value tree for ``JSONWriter/write(_:into:pretty:sortedKeys:)``.
///
/// Recursive: depth is bounded by the parser's `maxDepth` for parsed values, and values built in code are expected
/// to stay far shallower than a thread's stack allows.
struct JSONEmitter {
    let pretty: Bool
    let sortedKeys: Bool
    var level = 0

    mutating func emit(_ value: JSONValue, into buffer: inout [UInt8]) {
        switch value {
        case .null:
            JSONWriter.appendASCII("null", into: &buffer)
        case .bool(let bool):
            JSONWriter.appendASCII(bool ? "true" : "false", into: &buffer)
        case .integer(let integer):
            JSONWriter.appendInteger(integer, into: &buffer)
        case .double(let double):
            JSONWriter.appendDouble(double, into: &buffer)
        case .string(let string):
            JSONWriter.appendString(string, into: &buffer)
        case .array(let elements):
            emitArray(elements, into: &buffer)
        case .object(let members):
            emitObject(members, into: &buffer)
        }
    }

    mutating func emitArray(_ elements: [JSONValue], into buffer: inout [UInt8]) {
        guard !elements.isEmpty else {
            JSONWriter.appendASCII("[]", into: &buffer)
            return
        }
        buffer.append(UInt8(ascii: "["))
        level += 1
        for (position, element) in elements.enumerated() {
            if position > 0 { buffer.append(UInt8(ascii: ",")) }
            newline(into: &buffer)
            emit(element, into: &buffer)
        }
        level -= 1
        newline(into: &buffer)
        buffer.append(UInt8(ascii: "]"))
    }

    mutating func emitObject(_ members: [String: JSONValue], into buffer: inout [UInt8]) {
        guard !members.isEmpty else {
            JSONWriter.appendASCII("{}", into: &buffer)
            return
        }
        buffer.append(UInt8(ascii: "{"))
        level += 1
        var first = true
        if sortedKeys && members.count > 1 {
            for (key, value) in members.sorted(by: { JSONKeyOrder.precedes($0.key, $1.key) }) {
                emitMember(key, value, first: &first, into: &buffer)
            }
        } else {
            for (key, value) in members {
                emitMember(key, value, first: &first, into: &buffer)
            }
        }
        level -= 1
        newline(into: &buffer)
        buffer.append(UInt8(ascii: "}"))
    }

    mutating func emitMember(_ key: String, _ value: JSONValue, first: inout Bool, into buffer: inout [UInt8]) {
        if !first { buffer.append(UInt8(ascii: ",")) }
        first = false
        newline(into: &buffer)
        JSONWriter.appendString(key, into: &buffer)
        buffer.append(UInt8(ascii: ":"))
        if pretty { buffer.append(UInt8(ascii: " ")) }
        emit(value, into: &buffer)
    }

    /// In pretty mode, starts a new line indented two spaces per level; in compact mode, nothing.
    func newline(into buffer: inout [UInt8]) {
        guard pretty else { return }
        buffer.append(UInt8(ascii: "\n"))
        buffer.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * level))
    }
}

/// Orders keys by their UTF-8 bytes.
///
/// `String`'s own `<` compares canonically normalised scalars, which is slower and differs from the byte order other
/// languages' sorted JSON output uses; byte order is what makes Hearth's output match theirs.
enum JSONKeyOrder {
    static func precedes(_ a: String, _ b: String) -> Bool {
        let contiguous = a.utf8.withContiguousStorageIfAvailable { left in
            b.utf8.withContiguousStorageIfAvailable { right in left.lexicographicallyPrecedes(right) }
        }
        if let contiguous, let result = contiguous { return result }
        return a.utf8.lexicographicallyPrecedes(b.utf8)
    }
}
