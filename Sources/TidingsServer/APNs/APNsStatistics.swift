/// Counts APNs outcomes by disposition and reason in a ``MetricsRegistry``
/// (`tidings_apns_outcomes_total{outcome,reason}`), and JWT renewals.
public struct APNsStatistics: Sendable {
    public static let outcomesMetric = "tidings_apns_outcomes_total"
    public static let tokenRenewalsMetric = "tidings_apns_provider_token_renewals_total"

    public let registry: MetricsRegistry

    public init(registry: MetricsRegistry) {
        self.registry = registry
    }

    /// Counts one final outcome.
    public func record(_ outcome: PushOutcome) {
        registry.counter(
            name: Self.outcomesMetric, help: "APNs answers by outcome and reason.",
            labels: ["outcome": Self.label(outcome.disposition), "reason": outcome.reason ?? "none"]
        ).increment()
    }

    /// Counts one provider-token invalidation after a 403.
    public func recordTokenRenewal() {
        registry.counter(
            name: Self.tokenRenewalsMetric, help: "Provider tokens invalidated after APNs rejected them."
        ).increment()
    }

    /// How many outcomes were counted with `outcome` (and `reason`, when given).
    public func count(outcome: String, reason: String) -> Double {
        registry.counter(
            name: Self.outcomesMetric, help: "APNs answers by outcome and reason.",
            labels: ["outcome": outcome, "reason": reason]
        ).value
    }

    /// The `outcome` label of a disposition.
    public static func label(_ disposition: PushOutcome.Disposition) -> String {
        switch disposition {
        case .sent: "sent"
        case .tokenInvalid: "token_invalid"
        case .tokenMismatch: "token_mismatch"
        case .retry: "retry"
        case .failed: "failed"
        case .skipped: "skipped"
        }
    }
}
