import Foundation
import Synchronization

/// One-line structured logs (JSON objects) to standard error.
///
/// Callers pass only operational metadata — routes, status codes, durations, counts. Never pass document
/// data, tokens, passwords or full request paths: paths can carry user identifiers.
public struct Logger: Sendable {
    /// Severity, lowest first.
    public enum Level: Int, Sendable, Comparable, CaseIterable {
        /// Per-request detail.
        case debug
        /// Lifecycle events.
        case info
        /// Something unexpected that the server survived.
        case warning
        /// A failure.
        case error

        /// The name used in flags and log lines.
        public var name: String {
            switch self {
            case .debug: return "debug"
            case .info: return "info"
            case .warning: return "warning"
            case .error: return "error"
            }
        }

        /// The level with this name (`debug`, `info`, `warning`/`warn`, `error`).
        public init?(name: String) {
            switch name.lowercased() {
            case "debug", "trace": self = .debug
            case "info": self = .info
            case "warning", "warn": self = .warning
            case "error": self = .error
            default: return nil
            }
        }

        /// Levels order by severity: debug < info < warning < error.
        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// Where log lines go; tests may capture them.
    public typealias Sink = @Sendable (String) -> Void

    /// The lowest level written.
    public var level: Level
    private let sink: Sink

    /// A logger writing at or above `level` to `sink` (standard error by default).
    public init(level: Level, sink: @escaping Sink = Logger.standardError) {
        self.level = level
        self.sink = sink
    }

    /// Writes one line to standard error, whole.
    public static let standardError: Sink = { line in
        var bytes = Array(line.utf8)
        bytes.append(0x0A)
        standardErrorLock.withLock { _ in
            bytes.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = write(STDERR_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
                    if written <= 0 { break }
                    offset += written
                }
            }
        }
    }

    private static let standardErrorLock = Mutex(())

    /// Logs a message with metadata, when `level` is enabled.
    public func log(_ level: Level, _ message: String, _ metadata: [String: LogValue] = [:]) {
        guard level >= self.level else { return }
        var line = "{\"ts\":\"\(Self.timestamp())\",\"level\":\"\(level.name)\",\"msg\":"
        Self.appendQuoted(message, to: &line)
        for key in metadata.keys.sorted() {
            line += ","
            Self.appendQuoted(key, to: &line)
            line += ":"
            switch metadata[key]! {
            case .string(let text): Self.appendQuoted(text, to: &line)
            case .int(let number): line += String(number)
            case .double(let number): line += number.isFinite ? String(number) : "null"
            case .bool(let flag): line += flag ? "true" : "false"
            }
        }
        line += "}"
        sink(line)
    }

    /// Logs at `debug`.
    public func debug(_ message: String, _ metadata: [String: LogValue] = [:]) { log(.debug, message, metadata) }
    /// Logs at `info`.
    public func info(_ message: String, _ metadata: [String: LogValue] = [:]) { log(.info, message, metadata) }
    /// Logs at `warning`.
    public func warning(_ message: String, _ metadata: [String: LogValue] = [:]) { log(.warning, message, metadata) }
    /// Logs at `error`.
    public func error(_ message: String, _ metadata: [String: LogValue] = [:]) { log(.error, message, metadata) }

    private static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = time_t(now.tv_sec)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
            parts.tm_hour, parts.tm_min, parts.tm_sec, Int(now.tv_nsec / 1_000_000))
    }

    static func appendQuoted(_ text: String, to line: inout String) {
        line += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": line += "\\\""
            case "\\": line += "\\\\"
            case "\n": line += "\\n"
            case "\r": line += "\\r"
            case "\t": line += "\\t"
            case _ where scalar.value < 0x20: line += String(format: "\\u%04x", scalar.value)
            default: line.unicodeScalars.append(scalar)
            }
        }
        line += "\""
    }
}

/// A metadata value in a log line.
public enum LogValue: Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    /// Text.
    case string(String)
    /// An integer.
    case int(Int)
    /// A number.
    case double(Double)
    /// A flag.
    case bool(Bool)

    /// A string value from a literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An integer value from a literal.
    public init(integerLiteral value: Int) { self = .int(value) }
}
