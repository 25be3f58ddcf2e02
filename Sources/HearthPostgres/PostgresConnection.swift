internal import CLibPQ
import Synchronization

#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// One libpq connection. Its calls block the calling thread until the server answers; a lock makes each call
/// exclusive, because libpq forbids two threads using one connection at once.
public final class PostgresConnection: Sendable {
    /// The libpq handle; nil after `close()`.
    private let handle: Mutex<OpaquePointer?>

    /// Connects with a libpq conninfo string (`host=127.0.0.1 port=5432 dbname=x user=y`) or URL
    /// (`postgres://user@host:port/db`). Throws `.connectFailed` with libpq's reason.
    public init(conninfo: String) throws {
        guard let connection = PQconnectdb(conninfo) else {
            throw PostgresError(kind: .connectFailed, message: "out of memory allocating a connection")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = Self.errorMessage(connection)
            PQfinish(connection)
            throw PostgresError(kind: .connectFailed, message: message)
        }
        handle = Mutex(connection)
    }

    deinit {
        handle.withLock { connection in
            if let connection { PQfinish(connection) }
        }
    }

    /// Closes the connection; later calls throw `.connectionLost`.
    public func close() {
        handle.withLock { connection in
            if let open = connection { PQfinish(open) }
            connection = nil
        }
    }

    /// Whether libpq still considers the connection usable.
    public var isHealthy: Bool {
        handle.withLock { connection in connection.map { PQstatus($0) == CONNECTION_OK } ?? false }
    }

    /// Runs one SQL statement with `$1…$n` parameters bound out of band (never spliced into the text), and
    /// returns its rows in text or binary format.
    @discardableResult
    public func query(
        _ sql: String, _ parameters: [PostgresParameter] = [], binaryResults: Bool = false
    ) throws
        -> PostgresRows
    {
        // libpq reads a text parameter up to its first NUL, so one inside would silently cut the value short.
        for case .text(let text) in parameters where text.utf8.contains(0) {
            throw PostgresError(
                kind: .invalidParameter, message: "a text parameter contains a NUL character, which text cannot hold")
        }
        return try handle.withLock { connection in
            guard let connection else { throw PostgresError(kind: .connectionLost, message: "connection closed") }
            let result = Self.execute(connection, sql, parameters, binaryResults: binaryResults)
            defer { PQclear(result) }
            return try Self.rows(of: result, on: connection, binary: binaryResults)
        }
    }

    /// Runs `body` inside `BEGIN … COMMIT` at the given isolation level; rolls back if `body` or the commit
    /// throws. A serialization failure surfaces as `.serializationFailure` for the caller to retry.
    @discardableResult
    public func transaction<T>(
        isolation: PostgresIsolation = .readCommitted, _ body: (PostgresConnection) throws -> T
    ) throws -> T {
        try query("BEGIN ISOLATION LEVEL \(isolation.sql)")
        do {
            let value = try body(self)
            try query("COMMIT")
            return value
        } catch {
            // A broken connection cannot roll back; the server discards the transaction itself.
            _ = try? query("ROLLBACK")
            throw error
        }
    }

    /// Subscribes this connection to `channel` (a plain identifier); notifications arrive through
    /// `notifications(waitingUpTo:)`.
    public func listen(_ channel: String) throws {
        try query("LISTEN \(try PostgresIdentifier.quote(channel))")
    }

    /// Returns notifications received so far, waiting up to `milliseconds` for the first when none is queued.
    public func notifications(waitingUpTo milliseconds: Int32 = 0) throws -> [PostgresNotification] {
        try handle.withLock { connection in
            guard let connection else { throw PostgresError(kind: .connectionLost, message: "connection closed") }
            var received = try Self.drain(connection)
            if received.isEmpty, milliseconds > 0 {
                var descriptor = pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0)
                _ = poll(&descriptor, 1, milliseconds)
                received = try Self.drain(connection)
            }
            return received
        }
    }

    private static func drain(_ connection: OpaquePointer) throws -> [PostgresNotification] {
        guard PQconsumeInput(connection) == 1 else {
            throw PostgresError(kind: .connectionLost, message: errorMessage(connection))
        }
        var received: [PostgresNotification] = []
        while let notify = PQnotifies(connection) {
            received.append(
                PostgresNotification(
                    channel: String(cString: notify.pointee.relname),
                    payload: String(cString: notify.pointee.extra),
                    processID: notify.pointee.be_pid))
            PQfreemem(notify)
        }
        return received
    }

    private static func execute(
        _ connection: OpaquePointer, _ sql: String, _ parameters: [PostgresParameter], binaryResults: Bool
    ) -> OpaquePointer? {
        // Copies of each value that live until PQexecParams returns; libpq reads them synchronously.
        var values: [UnsafeMutablePointer<CChar>?] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        defer { for value in values { value?.deallocate() } }
        for parameter in parameters {
            let bytes: [UInt8]?
            switch parameter {
            case .null:
                bytes = nil
                formats.append(0)
            case .text(let text):
                bytes = Array(text.utf8)
                formats.append(0)
            case .binary(let data):
                bytes = data
                formats.append(1)
            }
            guard let bytes else {
                values.append(nil)
                lengths.append(0)
                continue
            }
            // Text parameters must end in NUL; one spare byte serves both formats.
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            // One block copy: a file's chunk is a MiB, which a loop per byte takes long over in a debug build.
            bytes.withUnsafeBytes { source in
                if let base = source.baseAddress {
                    UnsafeMutableRawPointer(copy).copyMemory(from: base, byteCount: source.count)
                }
            }
            copy[bytes.count] = 0
            values.append(copy)
            lengths.append(Int32(bytes.count))
        }
        return values.map { UnsafePointer($0) }.withUnsafeBufferPointer { valuePointers in
            PQexecParams(
                connection, sql, Int32(parameters.count), nil, valuePointers.baseAddress, lengths, formats,
                binaryResults ? 1 : 0)
        }
    }

    private static func rows(
        of result: OpaquePointer?, on connection: OpaquePointer, binary: Bool
    ) throws
        -> PostgresRows
    {
        guard let result else {
            throw PostgresError(kind: lostOrServer(connection), message: errorMessage(connection))
        }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
            break
        default:
            if PQstatus(connection) != CONNECTION_OK {
                throw PostgresError(kind: .connectionLost, message: errorMessage(connection))
            }
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            let message = String(cString: PQresultErrorMessage(result)).trimmingSpace()
            throw PostgresError.fromServer(sqlState: state, message: message)
        }
        let columnCount = PQnfields(result)
        let rowCount = PQntuples(result)
        let columns = (0..<columnCount).map { String(cString: PQfname(result, $0)) }
        var cells: [[[UInt8]?]] = []
        cells.reserveCapacity(Int(rowCount))
        for row in 0..<rowCount {
            cells.append(
                (0..<columnCount).map { column in
                    guard PQgetisnull(result, row, column) == 0 else { return nil }
                    let length = Int(PQgetlength(result, row, column))
                    guard let value = PQgetvalue(result, row, column) else { return [] }
                    return value.withMemoryRebound(to: UInt8.self, capacity: length) {
                        Array(UnsafeBufferPointer(start: $0, count: length))
                    }
                })
        }
        let affected = Int(String(cString: PQcmdTuples(result))) ?? 0
        return PostgresRows(columns: columns, cells: cells, binary: binary, affectedRows: affected)
    }

    private static func lostOrServer(_ connection: OpaquePointer) -> PostgresError.Kind {
        PQstatus(connection) == CONNECTION_OK ? .server : .connectionLost
    }

    private static func errorMessage(_ connection: OpaquePointer) -> String {
        PQerrorMessage(connection).map { String(cString: $0).trimmingSpace() } ?? "unknown libpq error"
    }
}

extension String {
    /// libpq messages end in a newline; errors read better as one line.
    fileprivate func trimmingSpace() -> String {
        var text = Substring(self)
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return String(text)
    }
}

/// A transaction isolation level.
public enum PostgresIsolation: Sendable {
    /// PostgreSQL's default: each statement sees what committed before it began.
    case readCommitted
    /// One snapshot for the whole transaction; concurrent updates to the same row fail with 40001.
    case repeatableRead
    /// Serializable snapshot isolation: any anomaly fails one transaction with 40001.
    case serializable

    var sql: String {
        switch self {
        case .readCommitted: "READ COMMITTED"
        case .repeatableRead: "REPEATABLE READ"
        case .serializable: "SERIALIZABLE"
        }
    }
}

/// A `NOTIFY` received on a channel this connection listens to.
public struct PostgresNotification: Sendable, Equatable {
    /// The channel name.
    public let channel: String
    /// The payload text ("" when none was sent).
    public let payload: String
    /// The server process that sent it.
    public let processID: Int32
}

/// Quoting of SQL identifiers that cannot be bound as parameters (channel names, database names).
public enum PostgresIdentifier {
    /// Quotes `name` as a SQL identifier; refuses empty names, NUL bytes and names over PostgreSQL's 63 bytes.
    public static func quote(_ name: String) throws -> String {
        guard !name.isEmpty, name.utf8.count <= 63, !name.utf8.contains(0) else {
            throw PostgresError(kind: .server, message: "invalid identifier")
        }
        return "\"" + String(name.flatMap { $0 == "\"" ? ["\"", "\""] : [$0] }) + "\""
    }
}
