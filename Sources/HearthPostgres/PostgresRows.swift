/// The rows a query returned, copied out of libpq's result so they outlive it and cross threads.
public struct PostgresRows: Sendable {
    /// Column names, in order.
    public let columns: [String]
    /// Cell values per row: nil for SQL NULL, otherwise the bytes libpq returned in the requested format.
    public let cells: [[[UInt8]?]]
    /// Whether values are in binary format (as asked in the query) rather than text.
    public let binary: Bool
    /// The number of rows a command touched (`INSERT`, `UPDATE`, `DELETE`), 0 when it does not say.
    public let affectedRows: Int

    /// The number of rows.
    public var count: Int { cells.count }

    /// The row at `index`.
    public subscript(index: Int) -> PostgresRow {
        PostgresRow(columns: columns, cells: cells[index], binary: binary)
    }

    /// All rows, in order.
    public var rows: [PostgresRow] { (0..<count).map { self[$0] } }
}

/// One result row with typed readers; each throws `PostgresError.Kind.decoding` on a value of another shape.
public struct PostgresRow: Sendable {
    /// Column names, in order.
    public let columns: [String]
    /// Raw cell values, nil for SQL NULL.
    public let cells: [[UInt8]?]
    /// Whether cells are in binary format.
    public let binary: Bool

    /// Whether the value at `column` is SQL NULL.
    public func isNull(_ column: Int) -> Bool { cells[column] == nil }

    /// The value at `column` as text, nil for NULL.
    public func string(_ column: Int) throws -> String? {
        guard let bytes = cells[column] else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The value at `column` as a 64-bit integer (`int2`/`int4`/`int8`), nil for NULL.
    public func int(_ column: Int) throws -> Int64? {
        guard let bytes = cells[column] else { return nil }
        if binary {
            guard [2, 4, 8].contains(bytes.count) else { throw Self.decoding(column, "integer") }
            var value: Int64 = bytes[0] & 0x80 != 0 ? -1 : 0
            for byte in bytes { value = (value << 8) | Int64(byte) }
            return value
        }
        guard let value = Int64(String(decoding: bytes, as: UTF8.self)) else { throw Self.decoding(column, "integer") }
        return value
    }

    /// The value at `column` as a boolean, nil for NULL.
    public func bool(_ column: Int) throws -> Bool? {
        guard let bytes = cells[column] else { return nil }
        switch (binary, bytes) {
        case (true, [0]), (false, [UInt8(ascii: "f")]): return false
        case (true, [1]), (false, [UInt8(ascii: "t")]): return true
        default: throw Self.decoding(column, "boolean")
        }
    }

    /// The value at `column` as bytes, nil for NULL. In text format a `bytea` arrives hex-escaped (`\x0a1b…`),
    /// which is decoded here; binary format is the bytes themselves.
    public func bytes(_ column: Int) throws -> [UInt8]? {
        guard let bytes = cells[column] else { return nil }
        if binary { return bytes }
        guard bytes.count >= 2, bytes[0] == UInt8(ascii: "\\"), bytes[1] == UInt8(ascii: "x"), bytes.count % 2 == 0
        else { throw Self.decoding(column, "bytea") }
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count - 2) / 2)
        var index = 2
        while index < bytes.count {
            guard let high = Self.hexDigit(bytes[index]), let low = Self.hexDigit(bytes[index + 1]) else {
                throw Self.decoding(column, "bytea")
            }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func decoding(_ column: Int, _ type: String) -> PostgresError {
        PostgresError(kind: .decoding, message: "column \(column) is not a \(type)")
    }
}
