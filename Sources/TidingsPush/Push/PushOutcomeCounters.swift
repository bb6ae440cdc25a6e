import TidingsMetrics
import TidingsModel

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
    /// The outcome counters asked for so far, by outcome and reason: every push is counted, and the registry
    /// renders and checks the labels on each lookup.
    private let known = LockedBox<[OutcomeKey: Counter]>([:])

    private struct OutcomeKey: Hashable {
        var outcome: String
        var reason: String
    }

    init(
        registry: MetricsRegistry, outcomesMetric: String, outcomesHelp: String, renewalsMetric: String,
        renewalsHelp: String
    ) {
        self.registry = registry
        self.outcomesMetric = outcomesMetric
        self.outcomesHelp = outcomesHelp
        self.renewalsMetric = renewalsMetric
        self.renewalsHelp = renewalsHelp
    }

    /// Counts one final outcome.
    func record(_ outcome: PushOutcome) {
        let key = OutcomeKey(outcome: Self.label(outcome.disposition), reason: outcome.reason ?? "none")
        if let counter = known.withLock({ $0[key] }) {
            counter.increment()
            return
        }
        let counter = registry.counter(
            name: outcomesMetric, help: outcomesHelp, labels: ["outcome": key.outcome, "reason": key.reason])
        known.withLock { $0[key] = counter }
        counter.increment()
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
