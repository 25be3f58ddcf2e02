/// A strict RFC 8259 parser that works directly on UTF-8 bytes.
///
/// Strict because Hearth takes JSON from anyone on the network, and input that only lenient parsers accept is read
/// differently by different programs: no comments, trailing commas, leading zeros, NaN literals, raw control
/// characters, ill-formed UTF-8 or unpaired surrogates. Any value may stand at the top level and surrounding whitespace is ignored. A leading UTF-8
/// byte-order mark is skipped because some Windows tools write one and it carries no meaning.
///
/// Nesting is tracked on an explicit stack rather than by recursion, so hostile input such as 100,000 `[` costs one
/// depth error, never a stack overflow, whatever thread the parse runs on.
public struct JSONParser {
    /// Limits and leniencies for one parse.
    public struct Options: Sendable {
        /// The deepest nesting of arrays and objects accepted, where `[]` is depth 1. Values are destroyed, compared
        /// and written recursively, so the limit is what keeps a hostile document from exhausting a thread's stack
        /// later.
        public var maxDepth: Int = 512
        /// Whether an object may name a key twice, the last value winning. Off by default because two readers of
        /// such a document can disagree on what it says.
        public var allowDuplicateKeys: Bool = false

        /// Creates the default options: depth 512, duplicate keys rejected.
        public init() {}
    }

    /// Parses one JSON value from UTF-8 `bytes`.
    public static func parse(_ bytes: [UInt8], options: Options = .init()) throws(JSONError) -> JSONValue {
        let result = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONError) in try parse(utf8: buffer, options: options) }
        }
        return try result.get()
    }

    /// Parses one JSON value from UTF-8 bytes in memory the caller owns, such as an HTTP body, without copying them.
    public static func parse(_ bytes: UnsafeRawBufferPointer, options: Options = .init()) throws(JSONError) -> JSONValue
    {
        let result = bytes.withMemoryRebound(to: UInt8.self) { buffer in
            Result { () throws(JSONError) in try parse(utf8: buffer, options: options) }
        }
        return try result.get()
    }

    /// Parses one JSON value from `string`.
    public static func parse(_ string: String, options: Options = .init()) throws(JSONError) -> JSONValue {
        // `withUTF8` needs a mutable string so it can make a bridged string contiguous; native strings are not copied.
        var string = string
        let result = string.withUTF8 { buffer in
            Result { () throws(JSONError) in try parse(utf8: buffer, options: options) }
        }
        return try result.get()
    }

    static func parse(utf8 buffer: UnsafeBufferPointer<UInt8>, options: Options) throws(JSONError) -> JSONValue {
        var scanner = JSONScanner(bytes: buffer, options: options)
        return try scanner.parseDocument()
    }
}
