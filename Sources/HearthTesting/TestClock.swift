public import HearthCore
import Synchronization

/// A wall clock a test sets and moves: hand ``wallClock`` to `HearthApplication` (or any part taking a
/// `WallClock`) and every commit time, token lifetime and server timestamp reads this time.
public final class TestClock: Sendable {
    private let current: Mutex<Timestamp>

    /// A clock standing at `start` (by default 2030-01-01T00:00:00Z) until moved.
    public init(_ start: Timestamp = Timestamp(microseconds: 1_893_456_000_000_000)) {
        current = Mutex(start)
    }

    /// The time it shows.
    public var now: Timestamp { current.withLock { $0 } }

    /// The clock as the server's parts take it.
    public var wallClock: WallClock { WallClock { [self] in now } }

    /// Moves the clock forward (or back, with a negative duration).
    public func advance(by duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let microseconds = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
        current.withLock { $0 = Timestamp(microseconds: $0.microseconds + microseconds) }
    }

    /// Sets the clock.
    public func set(_ time: Timestamp) {
        current.withLock { $0 = time }
    }
}
