#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The time of day, as every part of the server reads it: commit times, `request.time`, token lifetimes, rate
/// limits, snapshot expiry. One value is made at start-up and handed to each part, so a test can move time for all
/// of them at once.
public struct WallClock: Sendable {
    /// The current time.
    public let now: @Sendable () -> Timestamp

    /// A clock reading `now`.
    public init(now: @escaping @Sendable () -> Timestamp) {
        self.now = now
    }

    /// The system's clock (`CLOCK_REALTIME`), to the microsecond.
    public static let system = WallClock {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Timestamp(microseconds: Int64(spec.tv_sec) * 1_000_000 + Int64(spec.tv_nsec) / 1000)
    }

    /// Microseconds since the epoch (what commit times hold).
    public var microseconds: Int64 { now().microseconds }

    /// Milliseconds since the epoch (what the tree's server timestamps and Identity Toolkit's times hold).
    public var milliseconds: Int64 { now().microseconds / 1000 }

    /// Whole seconds since the epoch (what JWT `iat`/`exp` hold).
    public var seconds: Int64 { now().microseconds / 1_000_000 }

    /// Seconds since the epoch, with a fraction.
    public var unixSeconds: Double { Double(now().microseconds) / 1e6 }
}
