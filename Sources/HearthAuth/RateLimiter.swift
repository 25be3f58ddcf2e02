import HearthCore
import Synchronization

/// Token buckets keyed by account or client address: each key may spend `limit.count` attempts per
/// `limit.seconds`, refilled continuously, so a burst is allowed but a sustained guessing rate is not.
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Double
    }

    let limit: RateLimits.Limit
    private let clock: WallClock
    private let buckets = Mutex<[String: Bucket]>([:])
    /// Past this many keys, full (idle) buckets are dropped, which bounds memory under address spraying.
    private let pruneThreshold: Int

    init(limit: RateLimits.Limit, clock: WallClock, pruneThreshold: Int = 50_000) {
        self.limit = limit
        self.clock = clock
        self.pruneThreshold = pruneThreshold
    }

    private var refillPerSecond: Double { Double(limit.count) / Double(limit.seconds) }

    /// Whether `key` has an attempt left, without spending it.
    func allows(_ key: String) -> Bool {
        guard limit.count > 0 else { return true }
        let now = clock.unixSeconds
        return buckets.withLock { buckets in
            guard let bucket = buckets[key] else { return true }
            return refilled(bucket, at: now).tokens >= 1
        }
    }

    /// Spends one attempt of `key`; returns `false` (and spends nothing) when none is left.
    @discardableResult
    func consume(_ key: String) -> Bool {
        guard limit.count > 0 else { return true }
        let now = clock.unixSeconds
        return buckets.withLock { buckets in
            var bucket = buckets[key].map { refilled($0, at: now) } ?? Bucket(tokens: Double(limit.count), updated: now)
            guard bucket.tokens >= 1 else {
                buckets[key] = bucket
                return false
            }
            bucket.tokens -= 1
            buckets[key] = bucket
            if buckets.count > pruneThreshold {
                buckets = buckets.filter { refilled($0.value, at: now).tokens < Double(limit.count) }
            }
            return true
        }
    }

    /// Forgets `key`'s spent attempts (after a successful sign-in, failures no longer count).
    func reset(_ key: String) {
        _ = buckets.withLock { $0.removeValue(forKey: key) }
    }

    private func refilled(_ bucket: Bucket, at now: Double) -> Bucket {
        let elapsed = max(0, now - bucket.updated)
        return Bucket(tokens: min(Double(limit.count), bucket.tokens + elapsed * refillPerSecond), updated: now)
    }
}
