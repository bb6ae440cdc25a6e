import TidingsMetrics

/// Counts APNs outcomes by disposition and reason in a ``MetricsRegistry``
/// (`tidings_apns_outcomes_total{outcome,reason}`), and JWT renewals.
public struct APNsStatistics: Sendable {
    public static let outcomesMetric = "tidings_apns_outcomes_total"
    public static let tokenRenewalsMetric = "tidings_apns_provider_token_renewals_total"

    private let counters: PushOutcomeCounters
    public var registry: MetricsRegistry { counters.registry }

    public init(registry: MetricsRegistry) {
        counters = PushOutcomeCounters(
            registry: registry, outcomesMetric: Self.outcomesMetric,
            outcomesHelp: "APNs answers by outcome and reason.",
            renewalsMetric: Self.tokenRenewalsMetric,
            renewalsHelp: "Provider tokens invalidated after APNs rejected them.")
    }

    /// Counts one final outcome.
    public func record(_ outcome: PushOutcome) { counters.record(outcome) }

    /// Counts one provider-token invalidation after a 403.
    public func recordTokenRenewal() { counters.recordRenewal() }

    /// How many outcomes were counted with `outcome` and `reason`.
    public func count(outcome: String, reason: String) -> Double { counters.count(outcome: outcome, reason: reason) }

    /// The `outcome` label of a disposition.
    public static func label(_ disposition: PushOutcome.Disposition) -> String {
        PushOutcomeCounters.label(disposition)
    }
}
