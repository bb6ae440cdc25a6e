import Foundation

/// How fast one caller may go: a bucket of `burst` tokens that refills at `perSecond` tokens a second,
/// one token per request.
///
/// A caller idle long enough may send `burst` requests at once, then `perSecond` a second on average.
///
/// ```swift
/// let sends = RateLimit(burst: 20, perSecond: 10)   // "10 per second (burst 20)"
/// ```
public struct RateLimit: Sendable, Equatable, CustomStringConvertible {
    /// The bucket's capacity: requests allowed back to back after a quiet spell.
    public var burst: Int
    /// Tokens added a second; may be below one (`0.1` is six a minute).
    public var perSecond: Double

    /// - Precondition: `burst >= 1` and `perSecond` positive and finite; configuration parsing checks this
    ///   first (``isValid(burst:perSecond:)``), so a violation is a programming error.
    public init(burst: Int, perSecond: Double) {
        precondition(
            Self.isValid(burst: burst, perSecond: perSecond), "invalid rate limit \(perSecond)/s burst \(burst)")
        self.burst = burst
        self.perSecond = perSecond
    }

    /// Whether ``init(burst:perSecond:)`` accepts these values.
    public static func isValid(burst: Int, perSecond: Double) -> Bool {
        burst >= 1 && perSecond > 0 && perSecond.isFinite
    }

    /// `10 per second (burst 20)`: how limits are named in error messages and logs.
    public var description: String {
        let rate = perSecond == perSecond.rounded() ? String(Int(perSecond)) : String(format: "%g", perSecond)
        return "\(rate) per second (burst \(burst))"
    }
}
