import Foundation
import Testing
import TidingsModel
import TidingsPush
import TidingsServer
import TidingsStore
import TidingsTesting

/// Policy is decided when each delivery is claimed, against the installation as it is then: what changes
/// between acceptance and sending (the hour, consent, the token, the user) is what counts.
@Suite struct SendTimePolicyTests {
    /// The harness starts at 2027-01-15 08:00 UTC, 17:00 in Tokyo.
    static let tokyoAt2059: Duration = .seconds(3 * 3600 + 59 * 60)

    static let adConsent: [String: JSONValue] = ["consents": ["notifications": true, "ads": true]]

    func messageID(_ reply: APIHarness.Reply) throws -> String {
        try #require(reply.json["message_id"]?.stringValue, "\(reply.json)")
    }

    @Test func anAdRetriedAfter21InTokyoIsSkippedAsNight() async throws {
        let fixture = try MessageFixture()
        fixture.clock.advance(by: Self.tokyoAt2059)
        try await fixture.register("tokyo", seed: 1, Self.adConsent)
        fixture.provider.script(
            token: APIHarness.token(1), [PushOutcome(disposition: .retry(after: nil), status: 503, reason: "busy")])
        let id = try messageID(try await fixture.send(MessageFixture.alert(["all": true], ["message_type": "ad"])))
        // 20:59: the first try goes out and fails retryably.
        try await fixture.worker(backoff: .seconds(60)).drain()
        #expect(fixture.provider.pushes.count == 1)
        #expect(try await fixture.status(id).count("queued") == 1)
        // 21:01: the retry finds the night and skips instead of sending.
        fixture.clock.advance(by: .seconds(120))
        try await fixture.worker().drain()
        #expect(fixture.provider.pushes.count == 1)
        let status = try await fixture.status(id)
        #expect(status.skipped("night") == 1)
        #expect(status.json["state"] == "done")
    }

    @Test func consentWithdrawnAfterAcceptanceSkips() async throws {
        let fixture = try MessageFixture()
        try await fixture.register("a", seed: 1)
        try await fixture.register("b", seed: 2)
        let id = try messageID(try await fixture.send(MessageFixture.alert(["all": true])))
        try await fixture.harness.register("b", ["consents": ["notifications": false]])
        try await fixture.worker().drain()
        #expect(fixture.provider.pushes.map(\.token) == [APIHarness.token(1)])
        #expect(try await fixture.status(id).skipped("consent") == 1)
    }

    @Test func adConsentWithdrawnAfterAcceptanceSkips() async throws {
        let fixture = try MessageFixture()
        try await fixture.register("a", seed: 1, Self.adConsent.merging(["timezone": "Europe/London"]) { $1 })
        let id = try messageID(try await fixture.send(MessageFixture.alert(["all": true], ["message_type": "ad"])))
        try await fixture.harness.register("a", ["consents": ["notifications": true, "ads": false]])
        try await fixture.worker().drain()
        #expect(fixture.provider.pushes.isEmpty)
        #expect(try await fixture.status(id).skipped("ad_consent") == 1)
    }

    @Test func aTokenRotatedAfterAcceptanceReceivesThePushOnTheNewToken() async throws {
        let fixture = try MessageFixture()
        try await fixture.register("a", seed: 1)
        let id = try messageID(try await fixture.send(MessageFixture.alert(["all": true])))
        try await fixture.harness.register("a", ["apns_token": .string(APIHarness.token(42))])
        try await fixture.worker().drain()
        #expect(fixture.provider.pushes.map(\.token) == [APIHarness.token(42)])
        #expect(try await fixture.status(id).count("sent") == 1)
    }

    @Test func aTokenGainedAfterAcceptanceIsUsedAndOneLostSkips() async throws {
        let fixture = try MessageFixture()
        try await fixture.register("gains", seed: 1, ["apns_token": .null])
        try await fixture.register("loses", seed: 2)
        let id = try messageID(try await fixture.send(MessageFixture.alert(["all": true])))
        try await fixture.harness.register("gains", ["apns_token": .string(APIHarness.token(7))])
        _ = try await fixture.harness.call(
            "DELETE", "/v1/installations/loses/tokens/apns", key: fixture.harness.appKey)
        try await fixture.worker().drain()
        #expect(fixture.provider.pushes.map(\.token) == [APIHarness.token(7)])
        #expect(try await fixture.status(id).skipped("no_token") == 1)
    }

    @Test func aDeferredAdIsSentAt8LocalTime() async throws {
        let fixture = try MessageFixture()
        // 22:00 in Tokyo (13:00 UTC).
        fixture.clock.advance(by: .seconds(5 * 3600))
        try await fixture.register("tokyo", seed: 1, Self.adConsent)
        let id = try messageID(
            try await fixture.send(MessageFixture.alert(["all": true], ["message_type": "ad", "night": "defer"])))
        try await fixture.worker().drain()
        #expect(fixture.provider.pushes.isEmpty)
        var status = try await fixture.status(id)
        #expect(status.count("queued") == 1)
        #expect(status.json["state"] == "sending")
        // 07:59 the next morning: still held.
        fixture.clock.advance(by: .seconds(9 * 3600 + 59 * 60))
        try await fixture.worker().drain()
        #expect(fixture.provider.pushes.isEmpty)
        // 08:00: sent.
        fixture.clock.advance(by: .seconds(60))
        try await fixture.worker().drain()
        #expect(fixture.provider.pushes.count == 1)
        status = try await fixture.status(id)
        #expect(status.count("sent") == 1)
        #expect(status.json["state"] == "done")
    }

    @Test func aDeferredAdThatExpiresBeforeMorningIsSkippedAsExpired() async throws {
        let fixture = try MessageFixture()
        fixture.clock.advance(by: .seconds(5 * 3600))
        try await fixture.register("tokyo", seed: 1, Self.adConsent)
        let id = try messageID(
            try await fixture.send(
                MessageFixture.alert(["all": true], ["message_type": "ad", "night": "defer", "ttl": 3600])))
        try await fixture.worker().drain()
        fixture.clock.advance(by: .seconds(10 * 3600))
        try await fixture.worker().drain()
        #expect(fixture.provider.pushes.isEmpty)
        #expect(try await fixture.status(id).skipped("expired") == 1)
    }

    @Test func aMessageToAUserIsNotSentToADeviceThatChangedHands() async throws {
        let fixture = try MessageFixture()
        try await fixture.register("phone", seed: 1, ["user_id": "alice"])
        try await fixture.register("tablet", seed: 2, ["user_id": "alice"])
        let id = try messageID(try await fixture.send(MessageFixture.alert(["user_ids": ["alice"]])))
        try await fixture.harness.register("tablet", ["user_id": "bob"])
        try await fixture.worker().drain()
        #expect(fixture.provider.pushes.map(\.token) == [APIHarness.token(1)])
        #expect(try await fixture.status(id).skipped("user_changed") == 1)
    }

    @Test func aMessageToATagIsNotSentToADeviceWhoseUserLeft() async throws {
        let fixture = try MessageFixture()
        try await fixture.register("phone", seed: 1, ["user_id": "alice"])
        try await fixture.register("tablet", seed: 2, ["user_id": "alice"])
        _ = try await fixture.harness.call(
            "PUT", "/v1/users/alice/tags", key: fixture.harness.serverKey, json: ["tags": ["vip"]])
        let id = try messageID(try await fixture.send(MessageFixture.alert(["tags": "vip"])))
        try await fixture.harness.register("tablet", ["user_id": .null])
        try await fixture.worker().drain()
        #expect(fixture.provider.pushes.map(\.token) == [APIHarness.token(1)])
        #expect(try await fixture.status(id).skipped("user_changed") == 1)
    }

    @Test func nightSkipsUnlessTheMessageAsksToDefer() async throws {
        let fixture = try MessageFixture()
        let reply = try await fixture.send(MessageFixture.alert(["all": true], ["night": "later"]))
        #expect(reply.status == 400)
        #expect(reply.errorMessage.contains("skip or defer"))
    }
}
