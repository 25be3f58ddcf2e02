public import Foundation
import HearthCore

/// A point in time with nanosecond precision, independent of time zones — Hearth's `Timestamp`.
///
/// Stored in Firestore as a `timestampValue`; the server keeps microseconds, as Firestore does.
public struct Timestamp: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Whole seconds since 1970-01-01T00:00:00Z.
    public let seconds: Int64
    /// Nanoseconds within the second, 0 ..< 1 000 000 000.
    public let nanoseconds: Int32

    /// Creates a timestamp; `nanoseconds` outside 0 ..< 1e9 carry into `seconds`.
    public init(seconds: Int64, nanoseconds: Int32) {
        var seconds = seconds
        var nanos = Int64(nanoseconds)
        seconds += nanos / 1_000_000_000
        nanos %= 1_000_000_000
        if nanos < 0 {
            nanos += 1_000_000_000
            seconds -= 1
        }
        self.seconds = seconds
        self.nanoseconds = Int32(nanos)
    }

    /// The timestamp of a `Date`.
    public init(date: Date) {
        let interval = date.timeIntervalSince1970
        let whole = interval.rounded(.down)
        self.init(seconds: Int64(whole), nanoseconds: Int32(((interval - whole) * 1e9).rounded()))
    }

    /// The current time.
    public static func now() -> Timestamp { Timestamp(date: Date()) }

    /// The instant as a `Date` (which keeps about microsecond precision).
    public func dateValue() -> Date {
        Date(timeIntervalSince1970: TimeInterval(seconds) + TimeInterval(nanoseconds) / 1e9)
    }

    /// Orders by time.
    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        (lhs.seconds, lhs.nanoseconds) < (rhs.seconds, rhs.nanoseconds)
    }

    /// RFC 3339 in UTC.
    public var description: String { core.rfc3339 }

    var core: HearthCore.Timestamp { HearthCore.Timestamp(seconds: seconds, nanos: nanoseconds) }

    init(core: HearthCore.Timestamp) { self.init(seconds: core.seconds, nanoseconds: core.nanos) }
}

/// A latitude/longitude pair — Hearth's `GeoPoint`.
public struct GeoPoint: Sendable, Hashable, Codable {
    /// Degrees, -90 … 90.
    public let latitude: Double
    /// Degrees, -180 … 180.
    public let longitude: Double

    /// Creates a point.
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// A path to a field, for names a dotted string cannot spell (dots, back-quotes) — Hearth's `FieldPath`.
public struct FieldPath: Sendable, Hashable, CustomStringConvertible {
    let core: HearthCore.FieldPath

    /// A path from its segments, each taken literally: `FieldPath(["a.b", "c"])` is field `c` of field `a.b`.
    public init(_ fieldNames: [String]) { core = HearthCore.FieldPath(segments: fieldNames) }

    /// The special path that orders or filters by document ID.
    public static func documentID() -> FieldPath { FieldPath(core: .documentName) }

    init(core: HearthCore.FieldPath) { self.core = core }

    /// The canonical dotted form (segments back-quoted where needed).
    public var description: String { core.description }

    /// Reads a dotted string such as `address.city`.
    static func parse(_ dotted: String) throws(FirestoreErrorCode) -> FieldPath {
        if dotted == "__name__" { return .documentID() }
        let segments = dotted.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !dotted.isEmpty, !segments.contains(where: \.isEmpty) else {
            throw FirestoreErrorCode(.invalidArgument, "Invalid field path \"\(dotted)\": empty segment.")
        }
        return FieldPath(segments)
    }

    /// A `String` (dotted) or a `FieldPath`.
    static func from(_ any: Any) throws(FirestoreErrorCode) -> FieldPath {
        if let path = any as? FieldPath { return path }
        if let text = any as? String { return try parse(text) }
        throw FirestoreErrorCode(.invalidArgument, "A field must be a String or a FieldPath, got \(type(of: any)).")
    }
}
