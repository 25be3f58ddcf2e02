/// One automatic single-field index entry of a document.
///
/// Every field, including each field nested in a map, gets a `.value` entry whose key orders as the field's
/// value; each distinct element of an array field also gets an `.arrayElement` entry, which serves
/// `array-contains` and `array-contains-any`. Descending order is the same entries scanned backwards.
public struct IndexEntry: Sendable, Hashable {
    /// Which of a field's indexes an entry belongs to.
    public enum Kind: Int, Sendable, Hashable {
        /// The field's value, for equality, ranges and ordering.
        case value = 0
        /// One element of an array field, for `array-contains`.
        case arrayElement = 1
    }

    /// The field's canonical path text (``FieldPath/description``).
    public var field: String
    /// The index the entry belongs to.
    public var kind: Kind
    /// The order-preserving key (``IndexKey``).
    public var key: [UInt8]

    /// Creates an entry.
    public init(field: String, kind: Kind, key: [UInt8]) {
        self.field = field
        self.kind = kind
        self.key = key
    }

    /// Every automatic index entry of a document's fields.
    public static func entries(for fields: [String: Value]) -> [IndexEntry] {
        var entries: [IndexEntry] = []
        entries.reserveCapacity(fields.count + 4)
        collect(fields, prefix: "", into: &entries)
        return entries
    }

    /// `prefix` is the text (``FieldPath/description``) of the map holding `fields`, empty at the top level. Texts
    /// are extended segment by segment rather than made from a `FieldPath` per field: every write indexes every
    /// field, and the path arrays cost more than the keys.
    private static func collect(_ fields: [String: Value], prefix: String, into entries: inout [IndexEntry]) {
        for (name, value) in fields {
            let segment = FieldPath.quoteIfNeeded(name)
            let field = prefix.isEmpty ? segment : prefix + "." + segment
            entries.append(IndexEntry(field: field, kind: .value, key: IndexKey.encode(value)))
            switch value {
            case .map(let inner):
                collect(inner, prefix: field, into: &entries)
            case .array(let elements):
                var seen = Set<[UInt8]>()
                for element in elements {
                    let key = IndexKey.encode(element)
                    if seen.insert(key).inserted {
                        entries.append(IndexEntry(field: field, kind: .arrayElement, key: key))
                    }
                }
            default:
                break
            }
        }
    }
}
