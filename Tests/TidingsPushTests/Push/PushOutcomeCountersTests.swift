import Foundation
import Testing

@testable import TidingsMetrics
@testable import TidingsPush

/// The outcome and renewal counters APNsStatistics and FCMStatistics share, each under its own metric names.
@Suite("Push outcome counters")
struct PushOutcomeCountersTests {
    @Test func eachProviderCountsUnderItsOwnNames() {
        let registry = MetricsRegistry()
        let apns = APNsStatistics(registry: registry)
        let fcm = FCMStatistics(registry: registry)
        apns.record(PushOutcome(disposition: .sent))
        apns.record(PushOutcome(disposition: .tokenInvalid(since: nil), reason: "Unregistered"))
        fcm.record(PushOutcome(disposition: .retry(after: nil), reason: "UNAVAILABLE"))
        fcm.record(PushOutcome(disposition: .retry(after: nil), reason: "UNAVAILABLE"))
        apns.recordTokenRenewal()
        fcm.recordTokenRefresh()
        fcm.recordTokenRefresh()

        #expect(apns.count(outcome: "sent", reason: "none") == 1)
        #expect(apns.count(outcome: "token_invalid", reason: "Unregistered") == 1)
        #expect(apns.count(outcome: "retry", reason: "UNAVAILABLE") == 0)
        #expect(fcm.count(outcome: "retry", reason: "UNAVAILABLE") == 2)
        #expect(fcm.count(outcome: "sent", reason: "none") == 0)
        #expect(registry.counter(name: APNsStatistics.tokenRenewalsMetric, help: "").value == 1)
        #expect(registry.counter(name: FCMStatistics.tokenRefreshesMetric, help: "").value == 2)
        #expect(apns.registry === registry && fcm.registry === registry)
    }

    @Test(arguments: [
        (PushOutcome.Disposition.sent, "sent"), (.tokenInvalid(since: nil), "token_invalid"),
        (.tokenMismatch, "token_mismatch"),
        (.retry(after: .seconds(5)), "retry"), (.failed, "failed"), (.skipped, "skipped"),
    ])
    func dispositionsHaveStableLabels(disposition: PushOutcome.Disposition, label: String) {
        #expect(APNsStatistics.label(disposition) == label)
        #expect(PushOutcomeCounters.label(disposition) == label)
    }
}
