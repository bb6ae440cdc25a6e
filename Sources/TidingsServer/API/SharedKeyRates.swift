import TidingsHTTP
import TidingsModel

/// Each key's rate over every instance on the store: a request takes a token leased from the key's schedule in
/// the store (``RateSlotSource``), a batch of a tenth of a second of the rate at a time, so the store sees a
/// lease per batch, not a round trip per request.
///
/// The schedule's horizon is the key's burst, which makes it the same token bucket as the one each instance keeps
/// (``TidingsHTTP/RateLimiter``), counted once for all instances. Leased tokens not used within
/// ``tokenLifetime`` lapse, so an instance cannot save them up: over any second the instances together accept at
/// most the burst, the rate, and one batch each.
final class SharedKeyRates: Sendable {
    /// How long leased tokens may be used.
    static let tokenLifetime: Duration = .seconds(1)
    let source: any RateSlotSource
    private let keys = LockedBox<[String: Held]>([:])

    /// Tokens this instance holds of one key, and until when its schedule has none to lease.
    private struct Held {
        var tokens = 0
        var expires: ContinuousClock.Instant
        var blockedUntil: ContinuousClock.Instant?
    }

    init(source: any RateSlotSource) {
        self.source = source
    }

    /// Takes one of `keyID`'s tokens under `limit`, leasing a batch when this instance holds none.
    func take(_ keyID: String, limit: RateLimit, now: ContinuousClock.Instant = .now) -> RateLimitDecision {
        let held = keys.withLock { keys -> RateLimitDecision? in
            guard var held = keys[keyID] else { return nil }
            if held.tokens > 0 && held.expires > now {
                held.tokens -= 1
                keys[keyID] = held
                return .allowed
            }
            if let until = held.blockedUntil, until > now {
                return .denied(retryAfterSeconds: Self.wholeSeconds(until - now))
            }
            return nil
        }
        if let held { return held }
        let interval = Duration.seconds(1 / limit.perSecond)
        let lease = source.lease(
            "key/" + keyID, interval: interval, want: max(1, min(limit.burst, Int(limit.perSecond / 10))), charge: 0,
            horizon: interval * (limit.burst - 1), now: now)
        return keys.withLock { keys in
            if keys.count > 100_000 {
                keys = keys.filter { $0.value.expires > now || ($0.value.blockedUntil ?? now) > now }
            }
            guard lease.granted > 0 else {
                keys[keyID] = Held(expires: now, blockedUntil: lease.first)
                return .denied(retryAfterSeconds: Self.wholeSeconds(lease.first - now))
            }
            // Requests that leased at once each add their batch: none is lost.
            var held = keys[keyID].flatMap { $0.expires > now ? $0 : nil } ?? Held(expires: now)
            held.tokens += lease.granted - 1
            held.expires = now + Self.tokenLifetime
            held.blockedUntil = nil
            keys[keyID] = held
            return .allowed
        }
    }

    /// `Retry-After`: whole seconds, rounded up, at least 1.
    static func wholeSeconds(_ duration: Duration) -> Int {
        max(1, Int((duration / .seconds(1)).rounded(.up)))
    }
}
