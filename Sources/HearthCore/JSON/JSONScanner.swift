/// One parse over one input buffer: the structural state machine. Strings, numbers and error messages live in
/// extensions in their own files.
struct JSONScanner {
    /// An array or object whose members are still being read: where its pending values and keys begin.
    struct Container {
        let isObject: Bool
        let valuesStart: Int
        let keysStart: Int
    }

    /// An object key waiting for its value, and where it started, for duplicate-key errors.
    struct PendingKey {
        let key: String
        let offset: Int
    }

    let bytes: UnsafeBufferPointer<UInt8>
    let options: JSONParser.Options
    /// Offset of the next unread byte.
    var index = 0
    /// Decoded bytes of the current string when it has escapes; kept across strings so a document allocates it once.
    var scratch: [UInt8] = []
    /// Containers opened around the value being parsed by a caller that reads the outer levels itself (the document
    /// body reader), so the depth limit counts from the top of the document all the same.
    var enclosingDepth = 0

    // Members of every open container wait on these shared stacks until their container closes, and then go into an
    // array or dictionary allocated at its final size. Growing each container as members arrive costs several
    // reallocations per container and, for dictionaries, rehashing every key at each growth, which profiling showed
    // to be the largest cost of a parse.
    var containers: [Container] = []
    var values: [JSONValue] = []
    var keys: [PendingKey] = []

    init(bytes: UnsafeBufferPointer<UInt8>, options: JSONParser.Options) {
        self.bytes = bytes
        self.options = options
    }

    /// Room for a typical request body, made when the first container opens (a scalar needs none): grown from empty,
    /// the stacks reallocated about ten times while parsing a one-document create.
    mutating func open(_ container: Container) {
        if containers.capacity == 0 {
            containers.reserveCapacity(8)
            values.reserveCapacity(16)
            keys.reserveCapacity(16)
        }
        containers.append(container)
    }

    mutating func parseDocument() throws(JSONError) -> JSONValue {
        index = JSONUTF8.byteOrderMarkLength(in: bytes)
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else {
            throw failure("Trailing characters after the JSON value", at: index)
        }
        return value
    }

    /// Reads one complete value, containers included, without recursing.
    ///
    /// The outer loop reads a scalar or opens a container; the inner loop hands each finished value to the innermost
    /// open container and closes containers until one wants another member.
    mutating func parseValue() throws(JSONError) -> JSONValue {
        var value: JSONValue
        nextValue: while true {
            skipWhitespace()
            guard index < bytes.count else { throw unexpected(at: index) }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                try checkDepth(opening: containers.count + 1)
                index += 1
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    value = .object([:])
                } else {
                    open(Container(isObject: true, valuesStart: values.count, keysStart: keys.count))
                    try readKey()
                    continue nextValue
                }
            case UInt8(ascii: "["):
                try checkDepth(opening: containers.count + 1)
                index += 1
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    value = .array([])
                } else {
                    open(Container(isObject: false, valuesStart: values.count, keysStart: keys.count))
                    continue nextValue
                }
            case UInt8(ascii: "\""):
                value = .string(try parseString())
            case UInt8(ascii: "t"):
                try consumeLiteral("true")
                value = .bool(true)
            case UInt8(ascii: "f"):
                try consumeLiteral("false")
                value = .bool(false)
            case UInt8(ascii: "n"):
                try consumeLiteral("null")
                value = .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                value = try parseNumber()
            default:
                throw unexpected(at: index)
            }

            while let container = containers.last {
                values.append(value)
                skipWhitespace()
                guard index < bytes.count else { throw unexpected(at: index) }
                let byte = bytes[index]
                if byte == UInt8(ascii: ",") {
                    index += 1
                    if container.isObject { try readKey() }
                    continue nextValue
                }
                guard byte == (container.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else {
                    throw unexpected(at: index)
                }
                index += 1
                containers.removeLast()
                value = container.isObject ? .object(try closeObject(container)) : .array(closeArray(container))
            }
            return value
        }
    }

    mutating func closeArray(_ container: Container) -> [JSONValue] {
        let elements = Array(values[container.valuesStart...])
        values.removeLast(elements.count)
        return elements
    }

    mutating func closeObject(_ container: Container) throws(JSONError) -> [String: JSONValue] {
        let count = values.count - container.valuesStart
        var members = [String: JSONValue](minimumCapacity: count)
        for k in 0..<count {
            let pending = keys[container.keysStart + k]
            let previous = members.updateValue(values[container.valuesStart + k], forKey: pending.key)
            if previous != nil && !options.allowDuplicateKeys {
                throw duplicateKey(pending.key, at: pending.offset)
            }
        }
        values.removeLast(count)
        keys.removeLast(count)
        return members
    }

    /// Reads `"key" :` onto the key stack and leaves the scanner at the member's value.
    mutating func readKey() throws(JSONError) {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw unexpected(at: index) }
        let offset = index
        keys.append(PendingKey(key: try parseString(), offset: offset))
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw unexpected(at: index) }
        index += 1
    }

    func checkDepth(opening depth: Int) throws(JSONError) {
        if depth + enclosingDepth > options.maxDepth {
            throw failure("Nesting deeper than \(options.maxDepth) levels", at: index)
        }
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    /// Consumes `literal`, whose first byte the caller has already matched.
    mutating func consumeLiteral(_ literal: StaticString) throws(JSONError) {
        let expected = literal.utf8Start
        for k in 1..<literal.utf8CodeUnitCount {
            let i = index + k
            guard i < bytes.count, bytes[i] == expected[k] else { throw unexpected(at: i) }
        }
        index += literal.utf8CodeUnitCount
    }
}
