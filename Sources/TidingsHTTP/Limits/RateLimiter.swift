import Foundation
import TidingsModel

/// Keyed token buckets: one ``RateLimit`` bucket per key (an API key, a client address), in bounded memory.
///
/// ```swift
/// let failures = RateLimiter(limit: RateLimit(burst: 10, perSecond: 0.2))
/// // Before trying a caller's credentials: is this address already over its failures?
/// if case .denied(let wait) = failures.status(of: address) {
///     throw HTTPError.rateLimited(limit: failures.limit, retryAfterSeconds: wait)
/// }
/// // ... and on a failed attempt, spend one.
/// _ = failures.acquire(address)
///
/// // Per key, with each app's own limit:
/// try sends.enforce(keyID, limit: app.sendLimit)   // throws 429 rate_limited with Retry-After
/// ```
///
/// Decisions are a pure function of the buckets and the injected clock, taken under one lock, so the
/// limiter may be shared by every request thread. A bucket refills continuously; a clock that steps back
/// adds nothing (and takes nothing away).
///
/// Memory is bounded by ``maximumKeys``. When a new key would pass it, buckets that have refilled to full
/// are forgotten first (a full bucket is exactly what a new key gets, so nothing is lost); if that is not
/// enough, the buckets closest to full go next, down to seven eighths of the bound, so that a flood of
/// distinct keys costs a sweep every so often rather than one per request. The price of the bound: under
/// such a flood a key that was forgotten starts again with a full bucket.
public final class RateLimiter: Sendable {
    /// The default bound on keys: about 10 MB of buckets with short keys.
    public static let defaultMaximumKeys = 100_000

    /// The limit ``acquire(_:)``, ``status(of:)`` and ``enforce(_:)`` use when none is given.
    public let limit: RateLimit
    /// The most keys remembered at once.
    public let maximumKeys: Int
    private let clock: any TidingsClock
    private let state = LockedBox(State())

    /// - Parameters:
    ///   - limit: the default limit of every key; a call may pass another (per app, say).
    ///   - maximumKeys: the most buckets kept (at least 1).
    ///   - clock: the time buckets refill by; tests pass a manual one.
    public init(limit: RateLimit, maximumKeys: Int = defaultMaximumKeys, clock: any TidingsClock = SystemClock()) {
        self.limit = limit
        self.maximumKeys = max(1, maximumKeys)
        self.clock = clock
    }

    /// Takes a token from `key`'s bucket under the default limit.
    public func acquire(_ key: String) -> RateLimitDecision { acquire(key, limit: limit) }

    /// Takes a token from `key`'s bucket under `limit`, or says how long until there is one.
    ///
    /// A key whose limit changes between calls keeps its tokens, capped at the new burst.
    public func acquire(_ key: String, limit: RateLimit) -> RateLimitDecision {
        let now = clock.now.timeIntervalSince1970
        let maximumKeys = maximumKeys
        return state.withLock { state in
            var bucket = state.bucket(key, limit: limit, now: now, maximumKeys: maximumKeys)
            defer { state.buckets[key] = bucket }
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                return .allowed
            }
            return .denied(retryAfterSeconds: bucket.secondsUntilToken())
        }
    }

    /// Whether `key` has a token now under the default limit, without taking it.
    public func status(of key: String) -> RateLimitDecision { status(of: key, limit: limit) }

    /// Whether `key` has a token now under `limit`, without taking it (and without remembering a new key).
    public func status(of key: String, limit: RateLimit) -> RateLimitDecision {
        let now = clock.now.timeIntervalSince1970
        return state.withLock { state in
            guard var bucket = state.buckets[key] else { return .allowed }
            bucket.refill(to: now, limit: limit)
            return bucket.tokens >= 1 ? .allowed : .denied(retryAfterSeconds: bucket.secondsUntilToken())
        }
    }

    /// Takes a token from `key`'s bucket (under `limit`, or the default one), or throws
    /// ``HTTPError/rateLimited(limit:retryAfterSeconds:)``: `429 rate_limited` with `Retry-After`.
    public func enforce(_ key: String, limit: RateLimit? = nil) throws(HTTPError) {
        let limit = limit ?? self.limit
        if case .denied(let wait) = acquire(key, limit: limit) {
            throw HTTPError.rateLimited(limit: limit, retryAfterSeconds: wait)
        }
    }

    /// Forgets `key`, which then starts again with a full bucket (after a successful sign-in, say).
    public func reset(_ key: String) {
        _ = state.withLock { $0.buckets.removeValue(forKey: key) }
    }

    /// How many keys have a bucket now; never above ``maximumKeys``.
    public var keyCount: Int { state.withLock { $0.buckets.count } }

    /// How many buckets were forgotten to stay within ``maximumKeys`` (full ones included).
    public var evictions: Int { state.withLock { $0.evictions } }

    // MARK: State

    private struct Bucket {
        var tokens: Double
        /// Seconds since 1970 of the last refill.
        var updated: Double
        var limit: RateLimit

        init(limit: RateLimit, now: Double) {
            tokens = Double(limit.burst)
            updated = now
            self.limit = limit
        }

        mutating func refill(to now: Double, limit newLimit: RateLimit) {
            // A clock that stepped back refills nothing, and the bucket counts on from the new time.
            let elapsed = max(0, now - updated)
            limit = newLimit
            tokens = min(Double(limit.burst), tokens + elapsed * limit.perSecond)
            updated = now
        }

        /// Whole seconds until one token is there, at least 1 (`Retry-After` has no fractions, and 0 would
        /// invite an immediate retry).
        func secondsUntilToken() -> Int {
            let seconds = ((1 - tokens) / limit.perSecond).rounded(.up)
            return seconds.isFinite ? max(1, Int(min(seconds, Double(Int32.max)))) : 1
        }

        /// When the bucket is full again if left alone: the best to forget first.
        var fullAt: Double { updated + (Double(limit.burst) - tokens) / limit.perSecond }
    }

    private struct State {
        var buckets: [String: Bucket] = [:]
        var evictions = 0

        /// `key`'s bucket refilled to `now`; a new full one, making room for it first, when there is none.
        mutating func bucket(_ key: String, limit: RateLimit, now: Double, maximumKeys: Int) -> Bucket {
            if var bucket = buckets[key] {
                bucket.refill(to: now, limit: limit)
                return bucket
            }
            if buckets.count >= maximumKeys { makeRoom(now: now, maximumKeys: maximumKeys) }
            return Bucket(limit: limit, now: now)
        }

        /// Forgets full buckets, then the ones closest to full, until at most seven eighths of the bound
        /// (and at least one slot) are used.
        mutating func makeRoom(now: Double, maximumKeys: Int) {
            let before = buckets.count
            buckets = buckets.filter { $0.value.fullAt > now }
            let target = maximumKeys - max(1, maximumKeys / 8)
            if buckets.count > target {
                let nearestFull = buckets.sorted { $0.value.fullAt < $1.value.fullAt }.prefix(buckets.count - target)
                for (key, _) in nearestFull { buckets.removeValue(forKey: key) }
            }
            evictions += before - buckets.count
        }
    }
}
