/// Counts FCM outcomes by disposition and reason in a ``MetricsRegistry``
/// (`tidings_fcm_outcomes_total{outcome,reason}`), and access-token refreshes after a 401.
public struct FCMStatistics: Sendable {
    public static let outcomesMetric = "tidings_fcm_outcomes_total"
    public static let tokenRefreshesMetric = "tidings_fcm_access_token_refreshes_total"
    private static let outcomesHelp = "FCM answers by outcome and reason."

    public let registry: MetricsRegistry

    public init(registry: MetricsRegistry) {
        self.registry = registry
    }

    /// Counts one final outcome.
    public func record(_ outcome: PushOutcome) {
        registry.counter(
            name: Self.outcomesMetric, help: Self.outcomesHelp,
            labels: ["outcome": APNsStatistics.label(outcome.disposition), "reason": outcome.reason ?? "none"]
        ).increment()
    }

    /// Counts one access-token invalidation after FCM answered 401.
    public func recordTokenRefresh() {
        registry.counter(
            name: Self.tokenRefreshesMetric, help: "OAuth2 access tokens invalidated after FCM answered 401."
        ).increment()
    }

    /// How many outcomes were counted with `outcome` and `reason`.
    public func count(outcome: String, reason: String) -> Double {
        registry.counter(
            name: Self.outcomesMetric, help: Self.outcomesHelp, labels: ["outcome": outcome, "reason": reason]
        ).value
    }
}
