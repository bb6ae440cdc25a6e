import TidingsModel

/// How long to wait before sending a push again: exponential backoff with full jitter, never sooner than
/// the provider's `Retry-After`. A pure function of its inputs, so tests pass the random draw.
///
/// ```swift
/// let backoff = RetryBackoff(initial: .seconds(2), maximum: .seconds(300))
/// backoff.delay(attempt: 3, retryAfter: nil, random: 0.5)          // 8 s: half of min(2 × 2³, 300)
/// backoff.delay(attempt: 0, retryAfter: .seconds(30), random: 0.1)  // 30 s: Retry-After wins
/// ```
///
/// Full jitter (a uniform draw between zero and the exponential ceiling) spreads the retries of a burst of
/// 429s or 503s, so they do not come back all at once and fail together again.
public struct RetryBackoff: Sendable, Hashable {
    /// The ceiling of the first retry; it doubles per attempt...
    public var initial: Duration
    /// ...up to this.
    public var maximum: Duration

    public init(initial: Duration = .seconds(2), maximum: Duration = .seconds(300)) {
        self.initial = initial
        self.maximum = maximum
    }

    /// The wait before retry number `attempt + 1`.
    /// - Parameters:
    ///   - attempt: sends so far, minus one (0 after the first failure).
    ///   - retryAfter: the provider's `Retry-After`, a floor.
    ///   - random: a uniform draw in `0..<1`; 1 means no jitter.
    public func delay(attempt: Int, retryAfter: Duration?, random: Double) -> Duration {
        let ceiling = min(initial.seconds * Double(1 << min(max(attempt, 0), 20)), maximum.seconds)
        let jittered = ceiling * min(max(random, 0), 1)
        return .milliseconds(Int64((max(retryAfter?.seconds ?? 0, jittered) * 1000).rounded(.up)))
    }
}
