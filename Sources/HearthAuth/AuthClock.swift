import Foundation

/// Wall-clock time for token lifetimes, code expiry and rate limits; tests inject a fixed or stepping clock.
public struct AuthClock: Sendable {
    /// The current time in Unix seconds, with a fraction.
    public let now: @Sendable () -> Double

    /// A clock reading `now`.
    public init(now: @escaping @Sendable () -> Double) {
        self.now = now
    }

    /// The system clock.
    public static let system = AuthClock { Date().timeIntervalSince1970 }

    /// Whole Unix seconds (what JWT `iat`/`exp` and `validSince` hold).
    var seconds: Int64 { Int64(now().rounded(.down)) }

    /// Unix milliseconds (what Identity Toolkit's `createdAt`/`lastLoginAt` hold).
    var milliseconds: Int64 { Int64((now() * 1000).rounded(.down)) }
}
