/// Lexical checks on SQL text that SQLite itself does not offer.
enum SQLScript {
    /// Whether the rest of a C string holds only whitespace, semicolons and comments, i.e. no further statement.
    ///
    /// `prepare` compiles one statement and reports where the next begins; anything real there means the caller
    /// passed a script, which must not be half-run silently. Scanning instead of preparing the rest matters: a
    /// later statement may name a table that an earlier one creates.
    static func isTrivia(_ text: UnsafePointer<CChar>) -> Bool {
        var cursor = UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self)
        while true {
            switch cursor.pointee {
            case 0:
                return true
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), 0x0B, 0x0C,
                UInt8(ascii: ";"):
                cursor += 1
            case UInt8(ascii: "-") where cursor[1] == UInt8(ascii: "-"):
                while cursor.pointee != 0 && cursor.pointee != UInt8(ascii: "\n") { cursor += 1 }
            case UInt8(ascii: "/") where cursor[1] == UInt8(ascii: "*"):
                cursor += 2
                while cursor.pointee != 0 && !(cursor[0] == UInt8(ascii: "*") && cursor[1] == UInt8(ascii: "/")) {
                    cursor += 1
                }
                if cursor.pointee != 0 { cursor += 2 }
            default:
                return false
            }
        }
    }
}
