import Foundation
import TidingsHTTP
import TidingsModel
import TidingsStore

/// Failed sign-ins counted in the store (``SignInThrottleStore``), so every instance sharing it enforces one
/// limit: on several PostgreSQL-backed instances a guesser gets no more tries than on one.
struct SignInThrottle: Sendable {
    /// One count of failures: an address, a trusted browser or an account, with its limit.
    struct Bucket: Sendable, Equatable {
        var name: String
        var limit: RateLimit
    }

    let store: any Store
    let clock: any TidingsClock

    var now: Int64 { clock.now.millisecondsSince1970 }

    /// Refuses with 429 (naming the limit, `Retry-After` the longest wait) when any bucket is full.
    func check(_ buckets: [Bucket]) throws {
        let date = now
        var wait = 0.0
        var fullest: RateLimit?
        for bucket in buckets {
            let level = try store.signInFailureLevel(
                bucket: bucket.name, drainPerSecond: bucket.limit.perSecond, at: date)
            let excess = level + 1 - Double(bucket.limit.burst)
            if excess > 0, excess / bucket.limit.perSecond >= wait {
                wait = excess / bucket.limit.perSecond
                fullest = bucket.limit
            }
        }
        if let fullest { throw HTTPError.rateLimited(limit: fullest, retryAfterSeconds: Int(wait.rounded(.up))) }
    }

    /// Counts one failure in every bucket.
    func fail(_ buckets: [Bucket]) throws {
        let date = now
        for bucket in buckets {
            try store.addSignInFailure(bucket: bucket.name, drainPerSecond: bucket.limit.perSecond, at: date)
        }
    }

    func clear(_ bucket: Bucket) throws { try store.clearSignInFailures(bucket: bucket.name) }

    /// Drops buckets untouched for a day: the limits drain far sooner (docs/security.md).
    func removeStale() throws { try store.removeSignInFailures(updatedBefore: now - 86_400_000) }
}
