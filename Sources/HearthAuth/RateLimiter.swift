import HearthCore
import Synchronization

/// Token buckets keyed by account or client address: each key may spend `limit.count` attempts per
/// `limit.seconds`, refilled continuously, so a burst is allowed but a sustained guessing rate is not. The buckets
/// live in this process, or — when several nodes serve one project — in a ``RateLimitStorage`` they share, so an
/// attacker gains nothing by spreading attempts over the nodes.
final class RateLimiter: Sendable {
    let limit: RateLimits.Limit
    private let clock: WallClock
    /// Which limit this is in a shared storage (`address`, `account`, `mail`).
    private let scope: String
    private let storage: any RateLimitStorage

    init(
        limit: RateLimits.Limit, clock: WallClock, scope: String = "", storage: (any RateLimitStorage)? = nil,
        pruneThreshold: Int = 50_000
    ) {
        self.limit = limit
        self.clock = clock
        self.scope = scope
        self.storage = storage ?? InMemoryRateBuckets(pruneThreshold: pruneThreshold)
    }

    /// Whether `key` has an attempt left, without spending it.
    /// - Throws: `UNAVAILABLE` when a shared storage cannot count (see ``RateLimitStorage``).
    func allows(_ key: String) throws(AuthError) -> Bool {
        guard limit.count > 0 else { return true }
        return try storage.change(scope: scope, key: key, limit: limit, now: clock.unixSeconds, spend: false)
    }

    /// Spends one attempt of `key`; returns `false` (and spends nothing) when none is left.
    /// - Throws: `UNAVAILABLE` when a shared storage cannot count (see ``RateLimitStorage``).
    @discardableResult
    func consume(_ key: String) throws(AuthError) -> Bool {
        guard limit.count > 0 else { return true }
        return try storage.change(scope: scope, key: key, limit: limit, now: clock.unixSeconds, spend: true)
    }

    /// Forgets `key`'s spent attempts (after a successful sign-in, failures no longer count).
    func reset(_ key: String) {
        storage.reset(scope: scope, key: key)
    }
}

/// One token bucket: attempts left and when they were counted.
package struct RateBucket: Sendable, Equatable {
    /// Attempts left (fractional while refilling).
    package var tokens: Double
    /// When `tokens` was computed (Unix seconds).
    package var updated: Double

    /// A bucket.
    package init(tokens: Double, updated: Double) {
        self.tokens = tokens
        self.updated = updated
    }

    /// The bucket refilled up to `now` at `limit`'s rate, never past full.
    package func refilled(at now: Double, limit: RateLimits.Limit) -> RateBucket {
        let perSecond = Double(limit.count) / Double(limit.seconds)
        let elapsed = max(0, now - updated)
        return RateBucket(tokens: min(Double(limit.count), tokens + elapsed * perSecond), updated: now)
    }

    /// The bucket after one attempt at `now`: refilled, then one token spent when `spend` and one is left.
    /// - Returns: the new bucket and whether the attempt is allowed.
    package func attempt(at now: Double, limit: RateLimits.Limit, spend: Bool) -> (RateBucket, allowed: Bool) {
        var bucket = refilled(at: now, limit: limit)
        guard bucket.tokens >= 1 else { return (bucket, false) }
        if spend { bucket.tokens -= 1 }
        return (bucket, true)
    }
}

/// Where the buckets of the rate limits are kept.
package protocol RateLimitStorage: Sendable {
    /// Checks (and with `spend`, spends) one attempt of `key` under `scope`'s `limit` at `now`, atomically with every
    /// other change to the same bucket; whether it is allowed.
    /// - Throws: `UNAVAILABLE` when the attempt cannot be counted (a shared storage out of reach): an attempt no
    ///   limit counted is refused, never let through.
    func change(scope: String, key: String, limit: RateLimits.Limit, now: Double, spend: Bool) throws(AuthError) -> Bool
    /// Forgets the bucket.
    func reset(scope: String, key: String)
}

/// Buckets in this process.
final class InMemoryRateBuckets: RateLimitStorage {
    private let buckets = Mutex<[String: RateBucket]>([:])
    /// Past this many keys, full (idle) buckets are dropped, which bounds memory under address spraying.
    private let pruneThreshold: Int

    init(pruneThreshold: Int) {
        self.pruneThreshold = pruneThreshold
    }

    func change(scope: String, key: String, limit: RateLimits.Limit, now: Double, spend: Bool) -> Bool {
        buckets.withLock { buckets in
            let name = scope + "\u{0}" + key
            guard let bucket = buckets[name] else {
                if spend { buckets[name] = RateBucket(tokens: Double(limit.count) - 1, updated: now) }
                return true
            }
            let (next, allowed) = bucket.attempt(at: now, limit: limit, spend: spend)
            if spend { buckets[name] = next }
            if buckets.count > pruneThreshold {
                buckets = buckets.filter { $0.value.refilled(at: now, limit: limit).tokens < Double(limit.count) }
            }
            return allowed
        }
    }

    func reset(scope: String, key: String) {
        _ = buckets.withLock { $0.removeValue(forKey: scope + "\u{0}" + key) }
    }
}
