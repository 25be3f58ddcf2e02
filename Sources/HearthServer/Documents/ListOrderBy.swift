import HearthCore

/// The `orderBy` text of `documents.list`: comma-separated field paths, each optionally followed by `asc` or
/// `desc` (`priority desc, __name__ desc`), as the orderings of a query. Back-quoted segments may hold spaces and
/// commas (`` `due date` desc ``). Rules that span the orderings (a field once, `__name__` last) are the query's, checked
/// by `StructuredQuery.validate`.
enum ListOrderBy {
    /// The orderings, in order; empty text orders by nothing (names, ascending).
    static func parse(_ text: String) throws(HearthError) -> [QueryOrder] {
        guard !text.isEmpty else { return [] }
        func invalid(_ reason: String) -> HearthError {
            .invalidArgument(
                "Invalid orderBy \"\(text.prefix(200))\": \(reason). Write comma-separated field paths, each optionally followed by asc or desc, e.g. \"priority desc, __name__ desc\"."
            )
        }
        var orders: [QueryOrder] = []
        for (index, words) in items(of: text).enumerated() {
            guard let first = words.first else { throw invalid("item \(index + 1) is empty") }
            guard words.count <= 2 else {
                throw invalid("item \(index + 1) has \"\(words[2].prefix(50))\" after its direction")
            }
            let field: FieldPath
            do {
                field = try FieldPath(parsing: first)
            } catch {
                throw invalid("item \(index + 1): \(error.message)")
            }
            var descending = false
            if words.count == 2 {
                switch words[1].lowercased() {
                case "asc": descending = false
                case "desc": descending = true
                default: throw invalid("\"\(words[1].prefix(50))\" is not a direction; use asc or desc")
                }
            }
            orders.append(QueryOrder(field: field, descending: descending))
        }
        return orders
    }

    /// The words of each comma-separated item; commas and blanks inside back-quotes are part of a word (an
    /// unterminated quote runs to the end, for the field path parser to report).
    private static func items(of text: String) -> [[String]] {
        var items: [[String]] = [[]]
        var word: [UInt8] = []
        var quoted = false
        var escaped = false
        func endWord() {
            if !word.isEmpty { items[items.count - 1].append(String(decoding: word, as: UTF8.self)) }
            word = []
        }
        for byte in text.utf8 {
            if quoted {
                word.append(byte)
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "`") {
                    quoted = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "`"):
                quoted = true
                word.append(byte)
            case UInt8(ascii: " "), UInt8(ascii: "\t"):
                endWord()
            case UInt8(ascii: ","):
                endWord()
                items.append([])
            default:
                word.append(byte)
            }
        }
        endWord()
        return items
    }
}
