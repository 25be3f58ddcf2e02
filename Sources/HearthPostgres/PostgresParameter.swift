/// One bound parameter of a query, sent apart from the SQL text so it is never parsed as SQL.
public enum PostgresParameter: Sendable, Equatable {
    /// SQL NULL.
    case null
    /// Text format: the server parses it as the parameter's type (`'42'` for an `int8`, `'t'` for a `bool`).
    case text(String)
    /// Binary format: the type's binary send format (for `bytea`, the bytes themselves).
    case binary([UInt8])

    /// A 64-bit integer in text format.
    public static func int(_ value: Int64) -> PostgresParameter { .text(String(value)) }
    /// A boolean in text format.
    public static func bool(_ value: Bool) -> PostgresParameter { .text(value ? "t" : "f") }
}
