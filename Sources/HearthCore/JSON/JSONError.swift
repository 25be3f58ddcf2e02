/// Why and where the parser rejected a document.
///
/// The reason quotes at most one printable ASCII character, one escape sequence or the first 20 bytes of a key (with
/// invisible characters spelled out), so the error can be logged or returned to a client without leaking the
/// document it came from or disguising the log line it lands in.
public struct JSONError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Byte offset of the problem from the start of the input; a skipped byte-order mark counts.
    public var offset: Int
    /// 1-based line of ``offset``; a line ends at LF, CR LF or a lone CR.
    public var line: Int
    /// 1-based column of ``offset`` in Unicode scalars, not bytes, so it matches what an editor shows.
    public var column: Int
    /// What is wrong, as a short sentence such as `Unexpected character 'x'` or `Unterminated string`.
    public var reason: String

    /// Creates an error; the parser fills in ``line`` and ``column`` from ``offset`` itself.
    public init(offset: Int, line: Int, column: Int, reason: String) {
        self.offset = offset
        self.line = line
        self.column = column
        self.reason = reason
    }

    /// `Invalid JSON at line 1, column 7: Unexpected character 'x'`.
    public var description: String {
        "Invalid JSON at line \(line), column \(column): \(reason)"
    }
}

extension JSONError {
    /// An error at `offset` with its line and column worked out from `bytes`.
    ///
    /// Line and column are only needed once a parse has failed, so they are computed here rather than tracked while
    /// scanning, which would tax every valid document.
    static func locating(_ reason: String, at offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> JSONError {
        let offset = min(max(offset, 0), bytes.count)
        var line = 1
        // A byte-order mark is invisible in editors, so it must not shift columns on line 1.
        var lineStart = JSONUTF8.byteOrderMarkLength(in: bytes)
        lineStart = min(lineStart, offset)
        var i = lineStart
        while i < offset {
            let byte = bytes[i]
            i += 1
            if byte == 0x0A || (byte == 0x0D && (i == bytes.count || bytes[i] != 0x0A)) {
                line += 1
                lineStart = i
            }
        }
        var column = 1
        for j in lineStart..<offset where bytes[j] & 0xC0 != 0x80 {
            column += 1
        }
        return JSONError(offset: offset, line: line, column: column, reason: reason)
    }
}
