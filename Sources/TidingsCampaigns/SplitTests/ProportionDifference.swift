import Foundation

/// The difference between two rates (opened / delivered) with its 95% confidence interval, by the normal
/// approximation of the two-proportion test: what a marketer reads as "variant B opened 2.1 points more than
/// A, give or take 1.3".
public struct ProportionDifference: Sendable, Hashable {
    /// `rate(b) - rate(a)`.
    public var difference: Double
    public var lower: Double
    public var upper: Double
    /// The pooled z statistic of the test that the two rates are equal.
    public var z: Double

    /// The two-sided 95% quantile of the normal distribution.
    public static let z95 = 1.959_963_984_540_054

    /// The two-sided quantile of the normal distribution at `confidence` (0 to 1): the z with
    /// P(|Z| ≤ z) = erf(z / √2) = confidence, found by bisection on `erf` (1.959964 for 0.95).
    public static func quantile(confidence: Double) -> Double {
        var low = 0.0
        var high = 10.0
        for _ in 0..<100 {
            let middle = (low + high) / 2
            if erf(middle / 2.0.squareRoot()) < confidence { low = middle } else { high = middle }
        }
        return (low + high) / 2
    }

    /// Nil when either side has no trials.
    /// - Parameter quantile: the interval's z; ``z95`` for 95%, ``quantile(confidence:)`` for another.
    public init?(successesA: Int, trialsA: Int, successesB: Int, trialsB: Int, quantile: Double = z95) {
        guard trialsA > 0, trialsB > 0 else { return nil }
        let a = Double(successesA) / Double(trialsA)
        let b = Double(successesB) / Double(trialsB)
        difference = b - a
        // The interval uses each side's own variance (unpooled); the test pools them under the null hypothesis.
        let standardError = (a * (1 - a) / Double(trialsA) + b * (1 - b) / Double(trialsB)).squareRoot()
        lower = difference - quantile * standardError
        upper = difference + quantile * standardError
        let pooled = Double(successesA + successesB) / Double(trialsA + trialsB)
        let pooledError = (pooled * (1 - pooled) * (1 / Double(trialsA) + 1 / Double(trialsB))).squareRoot()
        z = pooledError > 0 ? difference / pooledError : 0
    }

    /// Whether the interval leaves out zero: the difference is significant at the interval's level (5% by default).
    public var isSignificant: Bool { lower > 0 || upper < 0 }
}
