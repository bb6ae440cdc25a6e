import Foundation
import Testing
import TidingsModel
import TidingsServer
import TidingsStore
import TidingsStoreTesting
import TidingsTesting

/// `POST /v1/messages` with `"dry_run": true`: the answer is what a real send of the same body then does, and
/// nothing is written. The harness's manual clock starts at 2027-01-15 08:00 UTC (17:00 in Tokyo).
@Suite struct DryRunTests {
    static let adConsent: JSONValue = ["notifications": true, "ads": true]

    @Test(arguments: StoreBackend.allCases)
    func consentsAdConsentNightTokensAndUnknownIdsAreCountedAsTheSendCountsThem(_ backend: StoreBackend)
        async throws
    {
        let fixture = try MessageFixture(backend: backend)
        // 21:30 in Tokyo: an ad without night-time consent is skipped there, not in London (12:30).
        fixture.clock.advance(by: .seconds(4 * 3600 + 30 * 60))
        try await fixture.register("sends", seed: 1, ["consents": Self.adConsent, "timezone": "Europe/London"])
        try await fixture.register("night", seed: 2, ["consents": Self.adConsent])
        try await fixture.register(
            "night-ok", seed: 3, ["consents": ["notifications": true, "ads": true, "night_ads": true]])
        try await fixture.register("no-consent", seed: 4, ["consents": ["notifications": false]])
        try await fixture.register("no-ads", seed: 5, ["consents": ["notifications": true]])
        try await fixture.register("sandbox", seed: 6, ["consents": Self.adConsent, "environment": "sandbox"])
        try await fixture.harness.register(
            "no-token", ["consents": Self.adConsent, "timezone": "Europe/London"])
        let ids: [JSONValue] = ["sends", "night", "night-ok", "no-consent", "no-ads", "sandbox", "no-token", "gone"]
        let answer = try await fixture.expectDryRunMatchesSend(
            MessageFixture.alert(
                ["installation_ids": .array(ids)], ["message_type": "ad", "environment": "production"]))
        let skipped = answer["reach"]?["skipped"]
        #expect(answer["dry_run"] == true)
        #expect(answer["audience"]?["matched"] == 7)
        #expect(answer["reach"]?["would_send"] == 2)
        #expect(skipped?["night"] == 1)
        #expect(skipped?["consent"] == 1)
        #expect(skipped?["ad_consent"] == 1)
        #expect(skipped?["environment"] == 1)
        #expect(skipped?["no_token"] == 1)
        #expect(skipped?["unknown_installation"] == 1)
        #expect(skipped?["frequency_cap"] == 0)
        let rendering = try #require(answer["renderings"]?.arrayValue?.first)
        #expect(rendering["payload"]?["aps"]?["alert"]?["title"] == "Hello")
        #expect(rendering["limit_bytes"] == 4096)
        #expect(rendering["fits"] == true)
        #expect(rendering["device_previews"]?.arrayValue?.first?["title"] == "Hello")
    }

    @Test func nothingIsWrittenNotEvenTheIdempotencyKey() async throws {
        let fixture = try MessageFixture()
        try await fixture.register("a", seed: 1)
        let body = MessageFixture.alert(["all": true], ["dry_run": true])
        let first = try await fixture.harness.call(
            "POST", "/v1/messages", key: fixture.harness.serverKey, json: body, headers: [("Idempotency-Key", "k1")])
        #expect(first.status == 200)
        #expect(try fixture.messageCount() == 0)
        #expect(try fixture.store.messageCounts(messageID: "").targets == 0)
        // The key was not kept: a real send under it runs (another body would be refused as a reuse).
        let real = try await fixture.harness.call(
            "POST", "/v1/messages", key: fixture.harness.serverKey, json: MessageFixture.alert(["all": true]),
            headers: [("Idempotency-Key", "k1")])
        #expect(real.status == 202, "\(real.json)")
        #expect(try fixture.messageCount() == 1)
        try await fixture.worker().drain()
        #expect(fixture.provider.pushes.count == 1)
    }

    @Test func badBodiesGetTheErrorsARealSendGets() async throws {
        let fixture = try MessageFixture()
        let bodies: [JSONValue] = [
            ["target": ["all": true], "content": ["title": "x"], "priority": 7],
            ["target": ["tags": "a &&"], "content": ["title": "x"]],
            ["content": ["title": "x"]],
            ["target": ["all": true], "content": ["title": "x"], "rate_per_second": 0],
        ]
        for body in bodies {
            let real = try await fixture.send(body)
            var object = try #require(body.objectValue)
            object["dry_run"] = true
            let dry = try await fixture.send(.object(object))
            #expect(real.status == 400)
            #expect(dry.status == real.status)
            #expect(dry.errorCode == real.errorCode)
            #expect(dry.errorMessage == real.errorMessage)
        }
        let notABool = try await fixture.send(MessageFixture.alert(["all": true], ["dry_run": "yes"]))
        #expect(notABool.status == 400)
        #expect(notABool.errorMessage.hasPrefix("dry_run"), "\(notABool.errorMessage)")
        #expect(try fixture.messageCount() == 0)
    }
}
