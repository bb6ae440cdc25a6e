import Foundation
import Testing
import TidingsModel
import TidingsTesting

@testable import TidingsPush
@testable import TidingsServer

/// Messages API → fan-out → routing provider → APNs emulator and fake FCM, with both kinds of token.
@Suite("Sending: APNs and FCM audiences", .serialized)
struct MixedAudienceTests {
    static let apnsA = String(repeating: "a1", count: 32)
    static let apnsB = String(repeating: "b2", count: 32)

    @Test func aMessageReachesAMixedAudienceThroughTheRightProvider() async throws {
        let harness = try SendingHarness()
        try await harness.register("apns-only", ["apns_token": .string(Self.apnsA)])
        try await harness.register("both", ["apns_token": .string(Self.apnsB), "fcm_token": "fcm-both"])
        try await harness.register("fcm-only", ["fcm_token": "fcm-only"])
        try await harness.register("fcm-gone", ["fcm_token": "fcm-gone"])
        try await harness.register("no-token", [:])
        harness.fake.script(token: "fcm-gone", [.init(status: 404, code: "UNREGISTERED")])

        let messageID = try await harness.sendAlertToAll()
        try await harness.worker().drain()

        #expect(await harness.emulator.collect(token: Self.apnsA).count == 1)
        #expect(await harness.emulator.collect(token: Self.apnsB).count == 1)
        let fcmTokens = harness.fake.received.compactMap(\.registrationToken).sorted()
        #expect(fcmTokens == ["fcm-gone", "fcm-only"], "the installation with both tokens went through APNs")
        let payload = try #require(harness.fake.received.first?.body["message"]?["apns"]?["payload"])
        #expect(payload["tidings"]?["id"] == .string(messageID))
        #expect(payload["aps"]?["alert"]?["title"] == "Sale")

        let status = try await harness.status(messageID)
        #expect(status.count("sent") == 3)
        #expect(status.count("failed") == 1)
        #expect(status.json["counts"]?["failed_by_reason"]?["UNREGISTERED"] == 1)
        #expect(status.skipped("no_token") == 1)
        #expect(try harness.installation("fcm-gone")?.fcmToken == nil)
        #expect(try harness.installation("fcm-only")?.fcmToken == "fcm-only")
        #expect(try harness.installation("both")?.fcmToken == "fcm-both")
        #expect(harness.counter("tidings_push_routes_total", ["route": "apns"]) == 2)
        #expect(harness.counter("tidings_push_routes_total", ["route": "fcm"]) == 2)
        #expect(
            harness.counter(FCMStatistics.outcomesMetric, ["outcome": "token_invalid", "reason": "UNREGISTERED"]) == 1)
        await harness.close()
    }

    @Test func withoutAPNsCredentialsAnInstallationGoesThroughItsFCMToken() async throws {
        let harness = try SendingHarness(withAPNs: false)
        try await harness.register("both", ["apns_token": .string(Self.apnsA), "fcm_token": "fcm-both"])
        try await harness.register("apns-only", ["apns_token": .string(Self.apnsB)])
        try await harness.register("fcm-sender-mismatch", ["fcm_token": "fcm-mismatch"])
        harness.fake.script(token: "fcm-both", [.init(status: 404, code: "UNREGISTERED")])
        harness.fake.script(token: "fcm-mismatch", [.init(status: 403, code: "SENDER_ID_MISMATCH")])

        let messageID = try await harness.sendAlertToAll()
        try await harness.worker().drain()

        #expect(await harness.emulator.collect(token: Self.apnsA).isEmpty)
        #expect(harness.fake.received.compactMap(\.registrationToken).sorted() == ["fcm-both", "fcm-mismatch"])
        let status = try await harness.status(messageID)
        #expect(status.skipped(PushRoute.SkipReason.noAPNsCredentials.rawValue) == 1)
        #expect(status.count("failed") == 2)
        // The FCM answer clears the FCM token the push went to, not the APNs token it was queued for.
        let both = try #require(try harness.installation("both"))
        #expect(both.fcmToken == nil)
        #expect(both.apnsToken == Self.apnsA)
        #expect(try harness.installation("fcm-sender-mismatch")?.fcmToken == nil)
        #expect(harness.counter("tidings_message_targets_skipped_total") == 1)
        await harness.close()
    }

    @Test func withoutFCMCredentialsFCMOnlyInstallationsAreSkippedWithAReason() async throws {
        let harness = try SendingHarness(withFCM: false)
        try await harness.register("fcm-only", ["fcm_token": "fcm-only"])
        try await harness.register("apns-only", ["apns_token": .string(Self.apnsA)])
        let messageID = try await harness.sendAlertToAll()
        try await harness.worker().drain()
        let status = try await harness.status(messageID)
        #expect(status.count("sent") == 1)
        #expect(status.skipped(PushRoute.SkipReason.noFCMCredentials.rawValue) == 1)
        #expect(harness.fake.received.isEmpty)
        #expect(try harness.installation("fcm-only")?.fcmToken == "fcm-only", "a skip never clears a token")
        await harness.close()
    }

    @Test func quotaExceededIsRetriedNoSoonerThanRetryAfter() async throws {
        let harness = try SendingHarness()
        try await harness.register("fcm-only", ["fcm_token": "fcm-busy"])
        harness.fake.script(token: "fcm-busy", [.init(status: 429, code: "QUOTA_EXCEEDED", retryAfter: "30")])
        let messageID = try await harness.sendAlertToAll()
        // Jitter pinned to zero: only Retry-After holds the retry back.
        let worker = harness.worker(initialBackoff: .seconds(2), random: 0)
        #expect(try await worker.drain() == 1)
        #expect(try await worker.drain() == 0)
        harness.clock.advance(by: .seconds(29))
        #expect(try await worker.drain() == 0, "not before Retry-After")
        harness.clock.advance(by: .seconds(1))
        #expect(try await worker.drain() == 1)
        #expect(harness.fake.received.count == 2)
        let status = try await harness.status(messageID)
        #expect(status.count("sent") == 1)
        #expect(harness.counter("tidings_pushes_retried_total") == 1)
        await harness.close()
    }

    @Test func unavailableIsRetriedAfterAJitteredBackoff() async throws {
        let harness = try SendingHarness()
        try await harness.register("fcm-only", ["fcm_token": "fcm-flaky"])
        harness.fake.script(
            token: "fcm-flaky", [.init(status: 503, code: "UNAVAILABLE"), .init(status: 500, code: "INTERNAL")])
        _ = try await harness.sendAlertToAll()
        // Ceiling 10 s then 20 s; a draw of 0.5 waits 5 s then 10 s.
        let worker = harness.worker(initialBackoff: .seconds(10), random: 0.5)
        #expect(try await worker.drain() == 1)
        harness.clock.advance(by: .seconds(4))
        #expect(try await worker.drain() == 0)
        harness.clock.advance(by: .seconds(1))
        #expect(try await worker.drain() == 1)
        harness.clock.advance(by: .seconds(9))
        #expect(try await worker.drain() == 0)
        harness.clock.advance(by: .seconds(1))
        #expect(try await worker.drain() == 1)
        #expect(harness.fake.received.count == 3)
        #expect(harness.counter(FCMStatistics.outcomesMetric, ["outcome": "sent", "reason": "none"]) == 1)
        #expect(harness.counter(FCMStatistics.outcomesMetric, ["outcome": "retry", "reason": "UNAVAILABLE"]) == 1)
        #expect(harness.counter(FCMStatistics.outcomesMetric, ["outcome": "retry", "reason": "INTERNAL"]) == 1)
        await harness.close()
    }

    @Test func invalidArgumentFailsWithoutARetry() async throws {
        let harness = try SendingHarness()
        try await harness.register("fcm-only", ["fcm_token": "fcm-bad"])
        harness.fake.script(token: "fcm-bad", [.init(status: 400, code: "INVALID_ARGUMENT")])
        let messageID = try await harness.sendAlertToAll()
        let worker = harness.worker(initialBackoff: .zero)
        try await worker.drain()
        harness.clock.advance(by: .seconds(600))
        #expect(try await worker.drain() == 0)
        #expect(harness.fake.received.count == 1)
        let status = try await harness.status(messageID)
        #expect(status.json["counts"]?["failed_by_reason"]?["INVALID_ARGUMENT"] == 1)
        #expect(try harness.installation("fcm-only")?.fcmToken == "fcm-bad")
        await harness.close()
    }
}

/// The routing decision and the backoff as pure functions.
@Suite struct PushRouteTests {
    struct Row: Sendable {
        var tokenType: TokenType
        var fcmToken: String?
        var apns: Bool
        var fcm: Bool
        var route: PushRoute
    }

    static let rows: [Row] = [
        Row(tokenType: .apns, fcmToken: "f", apns: true, fcm: true, route: .apns),
        Row(tokenType: .apns, fcmToken: "f", apns: false, fcm: true, route: .fcm(token: "f")),
        Row(tokenType: .apns, fcmToken: nil, apns: false, fcm: true, route: .skip(reason: .noAPNsCredentials)),
        Row(tokenType: .apns, fcmToken: "f", apns: false, fcm: false, route: .skip(reason: .noCredentials)),
        Row(tokenType: .voip, fcmToken: "f", apns: false, fcm: true, route: .skip(reason: .noAPNsCredentials)),
        Row(tokenType: .voip, fcmToken: nil, apns: true, fcm: false, route: .apns),
        Row(tokenType: .fcm, fcmToken: nil, apns: true, fcm: true, route: .fcm(token: "t")),
        Row(tokenType: .fcm, fcmToken: nil, apns: true, fcm: false, route: .skip(reason: .noFCMCredentials)),
    ]

    @Test(arguments: rows) func choosesTheProvider(_ row: Row) {
        let route = PushRoute.choose(
            tokenType: row.tokenType, token: "t", fcmToken: row.fcmToken, apnsAvailable: row.apns,
            fcmAvailable: row.fcm)
        #expect(route == row.route)
    }

    @Test func backoffIsFullJitterUnderACeilingAndNeverUnderRetryAfter() {
        let backoff = RetryBackoff(initial: .seconds(2), maximum: .seconds(60))
        #expect(backoff.delay(attempt: 0, retryAfter: nil, random: 1) == .seconds(2))
        #expect(backoff.delay(attempt: 3, retryAfter: nil, random: 0.5) == .seconds(8))
        #expect(backoff.delay(attempt: 10, retryAfter: nil, random: 1) == .seconds(60))
        #expect(backoff.delay(attempt: 3, retryAfter: nil, random: 0) == .zero)
        #expect(backoff.delay(attempt: 0, retryAfter: .seconds(30), random: 0.1) == .seconds(30))
        #expect(backoff.delay(attempt: 5, retryAfter: .seconds(1), random: 1) == .seconds(60))
        #expect(backoff.delay(attempt: 500, retryAfter: nil, random: 7) == .seconds(60))
    }
}
