import Foundation
public import Hearth

/// A time the server sets — Ballcap's `ServerTimestamp`: `.pending` writes `FieldValue.serverTimestamp()`; a stored
/// `null` or missing time reads as `.pending`, a stored time as `.resolved(time)`. Until the server has acknowledged
/// the write, local reads and listeners hold the SDK's estimate (the time of the write), as Ballcap reads them with
/// `.estimate`; the server's own time replaces it with the acknowledgement.
///
/// Hearth's SDK has Firestore's `@ServerTimestamp` property wrapper under the same name: a file that imports
/// only `HearthModels` sees this enum; one that imports `Hearth` as well names it `HearthModels.ServerTimestamp`.
public enum ServerTimestamp: Codable, Hashable, Sendable, RawRepresentable {
    /// Not yet set by the server.
    case pending
    /// The server's time.
    case resolved(Timestamp)

    /// `.resolved(rawValue)`.
    public init?(rawValue: Timestamp) { self = .resolved(rawValue) }

    /// The resolved time; a pending timestamp has none yet, and reads as the current time, as the SDK estimates it.
    public var rawValue: Timestamp {
        switch self {
        case .resolved(let time): time
        case .pending: Timestamp(date: Date())
        }
    }

    /// Reads a stored time; a missing or `null` field is `.pending`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        self = container.decodeNil() ? .pending : .resolved(try container.decode(Timestamp.self))
    }

    /// Writes the time, or `FieldValue.serverTimestamp()` while pending.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .pending: try container.encode(FieldValue.serverTimestamp())
        case .resolved(let time): try container.encode(time)
        }
    }
}
