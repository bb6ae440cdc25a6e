import TidingsModel

/// How long a destination's worker waits before sending a failed batch again: exponential backoff with full
/// jitter, never sooner than the destination's `Retry-After`. A pure function, so tests pass the random draw.
///
/// ```swift
/// let backoff = ForwardingBackoff(initial: .seconds(1), maximum: .seconds(60))
/// backoff.delay(attempt: 2, retryAfter: nil, random: 0.5)          // 2 s: half of min(1 × 2², 60)
/// backoff.delay(attempt: 0, retryAfter: .seconds(30), random: 0.1)  // 30 s: Retry-After wins
/// ```
public struct ForwardingBackoff: Sendable, Hashable {
    /// The ceiling of the first retry; it doubles per attempt...
    public var initial: Duration
    /// ...up to this.
    public var maximum: Duration

    public init(initial: Duration = .seconds(1), maximum: Duration = .seconds(60)) {
        self.initial = initial
        self.maximum = maximum
    }

    /// The wait before retry number `attempt + 1`.
    /// - Parameters:
    ///   - attempt: failures so far, minus one.
    ///   - retryAfter: the destination's `Retry-After`, a floor (itself capped at ten times ``maximum``).
    ///   - random: a uniform draw in `0..<1`; 1 means no jitter.
    public func delay(attempt: Int, retryAfter: Duration?, random: Double) -> Duration {
        let ceiling = min(initial.seconds * Double(1 << min(max(attempt, 0), 20)), maximum.seconds)
        let jittered = ceiling * min(max(random, 0), 1)
        let floor = min(retryAfter?.seconds ?? 0, maximum.seconds * 10)
        return .milliseconds(Int64((max(floor, jittered) * 1000).rounded(.up)))
    }
}
