import TidingsMetrics

/// Counts FCM outcomes by disposition and reason in a ``MetricsRegistry``
/// (`tidings_fcm_outcomes_total{outcome,reason}`, with the labels of ``APNsStatistics/label(_:)``), and
/// access-token refreshes after a 401.
public struct FCMStatistics: Sendable {
    public static let outcomesMetric = "tidings_fcm_outcomes_total"
    public static let tokenRefreshesMetric = "tidings_fcm_access_token_refreshes_total"

    private let counters: PushOutcomeCounters
    public var registry: MetricsRegistry { counters.registry }

    public init(registry: MetricsRegistry) {
        counters = PushOutcomeCounters(
            registry: registry, outcomesMetric: Self.outcomesMetric, outcomesHelp: "FCM answers by outcome and reason.",
            renewalsMetric: Self.tokenRefreshesMetric,
            renewalsHelp: "OAuth2 access tokens invalidated after FCM answered 401.")
    }

    /// Counts one final outcome.
    public func record(_ outcome: PushOutcome) { counters.record(outcome) }

    /// Counts one access-token invalidation after FCM answered 401.
    public func recordTokenRefresh() { counters.recordRenewal() }

    /// How many outcomes were counted with `outcome` and `reason`.
    public func count(outcome: String, reason: String) -> Double { counters.count(outcome: outcome, reason: reason) }
}
