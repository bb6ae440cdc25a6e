import TidingsMetrics

/// The fan-out counters in a ``MetricsRegistry``, or nothing when none was passed.
struct FanoutCounters: Sendable {
    let sent: Counter?
    let failed: Counter?
    let retried: Counter?
    let deferred: Counter?
    let skipped: Counter?
    let handedBack: Counter?
    let claimsLost: Counter?
    let handedOver: Counter?
    let tokensDeactivated: Counter?
    let messagesAccepted: Counter?
    let messagesFinished: Counter?
    let uninstallsRecorded: Counter?

    init(registry: MetricsRegistry?) {
        func counter(_ name: String, _ help: String) -> Counter? {
            registry?.counter(name: name, help: help)
        }
        sent = counter("tidings_pushes_sent_total", "Pushes the provider accepted.")
        failed = counter("tidings_pushes_failed_total", "Pushes that failed for good.")
        retried = counter("tidings_pushes_retried_total", "Pushes put back to be retried.")
        deferred = counter("tidings_pushes_deferred_total", "Ads held until 08:00 in the person's time zone.")
        skipped = counter(
            "tidings_message_targets_skipped_total", "Targets skipped by consent, night, expiry, token or user.")
        handedBack = counter(
            "tidings_pushes_handed_back_total",
            "Deliveries a stopping worker returned to the queue: not yet sent, or cut off in flight.")
        claimsLost = counter(
            "tidings_fanout_claims_lost_total",
            "Claimed deliveries dropped unsent: their claim was released (the instance taken for dead) or taken.")
        handedOver = counter(
            "tidings_fanout_deliveries_handed_over_total",
            "Deliveries the resolver wrote claimed for this process's worker: sent without a claim of their own.")
        tokensDeactivated = counter("tidings_tokens_deactivated_total", "Tokens cleared after APNs said gone.")
        messagesAccepted = counter("tidings_messages_accepted_total", "Messages accepted by POST /v1/messages.")
        messagesFinished = counter("tidings_messages_finished_total", "Messages with every target done.")
        uninstallsRecorded = counter(
            "tidings_uninstalls_recorded_total", "Uninstall events recorded by uninstall checks (APNs 410, FCM 404).")
    }
}
