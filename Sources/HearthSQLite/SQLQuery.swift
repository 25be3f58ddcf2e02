/// SQL text plus the values for its `?` parameters, built by string interpolation.
///
/// Every interpolated value becomes a bind parameter, so user data never becomes SQL:
///
///     let query: SQLQuery = "SELECT data FROM docs WHERE path = \(path) AND version > \(version)"
///     // sql: "SELECT data FROM docs WHERE path = ? AND version > ?", bindings: [.text(path), .integer(version)]
///
/// Raw SQL (identifiers, generated fragments) must be asked for by name, `\(unsafeSQL: tableName)`, so it stands out
/// in review. A `String` variable does not convert to `SQLQuery`; only literals do.
public struct SQLQuery: ExpressibleByStringInterpolation, Sendable, Equatable {
    /// SQL text with one `?` per binding.
    public var sql: String
    /// The parameter values, in the order of the `?`s.
    public var bindings: [SQLiteValue]

    /// Pairs SQL text with its parameter values; the caller vouches that `sql` holds no user data.
    public init(unsafeSQL sql: String, bindings: [SQLiteValue] = []) {
        self.sql = sql
        self.bindings = bindings
    }

    /// A literal without interpolations: plain SQL.
    public init(stringLiteral value: String) {
        self.init(unsafeSQL: value)
    }

    /// Collects the literal segments and parameters of an interpolated literal.
    public init(stringInterpolation: StringInterpolation) {
        self.init(unsafeSQL: stringInterpolation.sql, bindings: stringInterpolation.bindings)
    }

    /// Appends another query's SQL and bindings, e.g. to assemble a `WHERE` clause from parts.
    public mutating func append(_ other: SQLQuery) {
        sql += other.sql
        bindings += other.bindings
    }

    /// The interpolation builder: literal text is kept, values become `?`.
    public struct StringInterpolation: StringInterpolationProtocol, Sendable {
        /// SQL text so far.
        public var sql: String
        /// Parameter values so far.
        public var bindings: [SQLiteValue]

        /// Reserves room for the literal text and roughly one parameter per interpolation.
        public init(literalCapacity: Int, interpolationCount: Int) {
            sql = ""
            sql.reserveCapacity(literalCapacity + interpolationCount)
            bindings = []
            bindings.reserveCapacity(interpolationCount)
        }

        /// Literal SQL written in source.
        public mutating func appendLiteral(_ literal: String) {
            sql += literal
        }

        /// A value: becomes one `?` parameter.
        public mutating func appendInterpolation(_ value: some SQLiteBindable) {
            sql += "?"
            bindings.append(value.sqliteValue)
        }

        /// An optional value: one `?` parameter bound to the value or `NULL`. Spelled out so the compiler sees an
        /// optional parameter and does not warn about interpolating an optional.
        public mutating func appendInterpolation<T: SQLiteBindable>(_ value: T?) {
            sql += "?"
            bindings.append(value.sqliteValue)
        }

        /// A comma-separated parameter list for `IN (…)`; an empty sequence becomes `NULL`, which matches nothing
        /// and keeps the SQL valid.
        public mutating func appendInterpolation<S: Sequence>(list values: S) where S.Element: SQLiteBindable {
            var first = true
            for value in values {
                sql += first ? "?" : ", ?"
                bindings.append(value.sqliteValue)
                first = false
            }
            if first { sql += "NULL" }
        }

        /// A query fragment built the same safe way; its SQL and bindings are spliced in.
        public mutating func appendInterpolation(fragment: SQLQuery) {
            sql += fragment.sql
            bindings += fragment.bindings
        }

        /// Raw SQL, pasted verbatim. Only for text the program itself controls (identifiers from the schema,
        /// generated placeholders); never for user input.
        public mutating func appendInterpolation(unsafeSQL raw: String) {
            sql += raw
        }

        /// A quoted SQL identifier (`"name"`, inner quotes doubled), for table or column names chosen at run time.
        public mutating func appendInterpolation(identifier name: String) {
            sql += SQLQuery.quoteIdentifier(name)
        }
    }

    /// Quotes `name` as an SQL identifier, doubling embedded double quotes.
    public static func quoteIdentifier(_ name: String) -> String {
        "\"" + name.replacing("\"", with: "\"\"") + "\""
    }
}
