import TidingsMetrics

/// One provider's counters in a ``MetricsRegistry``: final outcomes by disposition and reason
/// (`<outcomes metric>{outcome,reason}`), and credentials the provider rejected and we replaced. The
/// provider statistics (``APNsStatistics``, ``FCMStatistics``) name the metrics; this counts them.
struct PushOutcomeCounters: Sendable {
    let registry: MetricsRegistry
    /// The outcomes counter's name and help.
    let outcomesMetric: String
    let outcomesHelp: String
    /// The rejected-credentials counter's name and help.
    let renewalsMetric: String
    let renewalsHelp: String

    /// Counts one final outcome.
    func record(_ outcome: PushOutcome) {
        registry.counter(
            name: outcomesMetric, help: outcomesHelp,
            labels: ["outcome": Self.label(outcome.disposition), "reason": outcome.reason ?? "none"]
        ).increment()
    }

    /// Counts one credential invalidated after the provider rejected it.
    func recordRenewal() {
        registry.counter(name: renewalsMetric, help: renewalsHelp).increment()
    }

    /// How many outcomes were counted with `outcome` and `reason`.
    func count(outcome: String, reason: String) -> Double {
        registry.counter(name: outcomesMetric, help: outcomesHelp, labels: ["outcome": outcome, "reason": reason])
            .value
    }

    /// The `outcome` label of a disposition.
    static func label(_ disposition: PushOutcome.Disposition) -> String {
        switch disposition {
        case .sent: "sent"
        case .tokenInvalid: "token_invalid"
        case .tokenMismatch: "token_mismatch"
        case .retry: "retry"
        case .failed: "failed"
        case .skipped: "skipped"
        case .interrupted: "interrupted"
        }
    }
}
