/// The Wilson score interval (95% unless told) of a rate (successes / trials): unlike the normal approximation it stays
/// inside 0...1 and holds up for small counts and rates near 0 or 1, which conversion rates often are.
public struct WilsonInterval: Sendable, Hashable {
    public var rate: Double
    public var lower: Double
    public var upper: Double

    /// Nil without trials.
    /// - Parameter quantile: the interval's z; 95% by default (``ProportionDifference/quantile(confidence:)``).
    public init?(successes: Int, trials: Int, quantile: Double = ProportionDifference.z95) {
        guard trials > 0 else { return nil }
        let n = Double(trials)
        let p = Double(successes) / n
        let z = quantile
        let z2 = z * z
        let denominator = 1 + z2 / n
        let center = (p + z2 / (2 * n)) / denominator
        let half = z / denominator * (p * (1 - p) / n + z2 / (4 * n * n)).squareRoot()
        rate = p
        // At 0 or all successes the bound is exactly 0 or 1; rounding would put it a hair inside.
        lower = successes == 0 ? 0 : max(0, center - half)
        upper = successes == trials ? 1 : min(1, center + half)
    }
}
