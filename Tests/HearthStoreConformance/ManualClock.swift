public import Foundation
public import HearthCore
public import HearthStore
import Synchronization

/// A wall clock the test moves by hand.
public final class ManualClock: Sendable {
    private let now = Mutex(Date(timeIntervalSince1970: 1_700_000_000))

    /// A clock at 2023-11-14 22:13:20 UTC.
    public init() {}

    /// Moves the clock forward.
    public func advance(_ seconds: TimeInterval) { now.withLock { $0 += seconds } }

    /// The clock as an engine reads it.
    public var read: WallClock {
        WallClock { [self] in Timestamp(microseconds: Int64(now.withLock { $0 }.timeIntervalSince1970 * 1e6)) }
    }
}

/// A document engine with the clock it reads, for checks that move time (transactions' expiry).
public struct ClockedDocumentStore: Sendable {
    /// The engine.
    public let store: any DocumentStore
    /// Its clock.
    public let clock: ManualClock

    /// Pairs an engine with the clock it was made with.
    public init(store: any DocumentStore, clock: ManualClock) {
        self.store = store
        self.clock = clock
    }
}
