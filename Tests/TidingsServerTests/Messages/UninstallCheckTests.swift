import Foundation
import Testing
import TidingsModel
import TidingsTesting

@testable import TidingsServer
@testable import TidingsStore

/// `POST /v1/uninstall-checks`: the request, the internal push it sends, and the `uninstall` events.
@Suite("Uninstall checks", .serialized)
struct UninstallCheckTests {
    /// The payload the SDK's test (`InternalPushTests`) decodes, with the message id removed.
    static let expectedPayload: JSONValue = [
        "aps": ["content-available": 1], "tidings": ["v": 1, "internal": true],
    ]

    @Test func sendsASilentInternalPushToEveryInstallationWithAToken() async throws {
        let fixture = try MessageFixture()
        try await fixture.register("a", seed: 1)
        try await fixture.register("refused-consent", seed: 2, ["consents": ["notifications": false]])
        try await fixture.register("sandbox", seed: 3, ["environment": "sandbox"])
        try await fixture.harness.register("no-token", ["consents": ["notifications": true]])

        let reply = try await fixture.harness.call(
            "POST", "/v1/uninstall-checks", key: fixture.harness.serverKey, json: ["environment": "production"])
        #expect(reply.status == 202, "\(reply.json)")
        #expect(reply.json["targets"] == 2, "consent does not apply; the sandbox one and the tokenless one are out")
        let messageID = try #require(reply.json["uninstall_check_id"]?.stringValue)
        #expect(reply.json["message_id"] == .string(messageID))

        try await fixture.worker().drain()
        let pushes = fixture.provider.pushes
        #expect(Set(pushes.map(\.token)) == [APIHarness.token(1), APIHarness.token(2)])
        let push = try #require(pushes.first)
        #expect(push.pushType == .background)
        #expect(push.priority == 5)
        var payload = try #require(try JSONValue.parse(push.payload).objectValue)
        #expect(payload["tidings"]?["id"] == .string(messageID))
        payload["tidings"] = payload["tidings"].flatMap { tidings in
            tidings.objectValue.map { object in .object(object.filter { $0.key != "id" }) }
        }
        #expect(JSONValue.object(payload) == Self.expectedPayload)

        let status = try await fixture.status(messageID)
        #expect(status.json["kind"] == "uninstall_check")
        #expect(status.json["state"] == "done")
        #expect(status.count("sent") == 2)
    }

    @Test func anEmptyBodyChecksEveryEnvironment() async throws {
        let fixture = try MessageFixture()
        try await fixture.register("a", seed: 1)
        try await fixture.register("sandbox", seed: 3, ["environment": "sandbox"])
        let reply = try await fixture.harness.call("POST", "/v1/uninstall-checks", key: fixture.harness.serverKey)
        #expect(reply.status == 202)
        #expect(reply.json["targets"] == 2)
    }

    @Test func refusesBadRequests() async throws {
        let fixture = try MessageFixture()
        let harness = fixture.harness
        let badEnvironment = try await harness.call(
            "POST", "/v1/uninstall-checks", key: harness.serverKey, json: ["environment": "staging"])
        #expect(badEnvironment.status == 400)
        #expect(badEnvironment.errorCode == "invalid_field")
        let unknownField = try await harness.call(
            "POST", "/v1/uninstall-checks", key: harness.serverKey, json: ["target": ["all": true]])
        #expect(unknownField.status == 400)
        #expect(unknownField.errorMessage.contains("target"))
        let notJSON = try await harness.call(
            "POST", "/v1/uninstall-checks", key: harness.serverKey, body: Data("{".utf8))
        #expect(notJSON.status == 400)
        let appKey = try await harness.call("POST", "/v1/uninstall-checks", key: harness.appKey)
        #expect(appKey.status == 403)
        let noKey = try await harness.call("POST", "/v1/uninstall-checks")
        #expect(noKey.status == 401)
        // The internal kind cannot be sent as an ordinary message.
        let asMessage = try await fixture.send(MessageFixture.alert(["all": true], ["kind": "uninstall_check"]))
        #expect(asMessage.status == 400)
        #expect(asMessage.errorCode == "invalid_field")
    }

    @Test func withoutAProviderItAnswers503() async throws {
        let harness = try APIHarness()
        let reply = try await harness.call("POST", "/v1/uninstall-checks", key: harness.serverKey)
        #expect(reply.status == 503)
        #expect(reply.errorCode == "no_provider")
    }

    @Test func a410RecordsAnUninstallAtAPNsTimestampAndDeactivatesTheToken() async throws {
        let harness = try SendingHarness()
        let live = String(repeating: "a1", count: 32)
        let gone = String(repeating: "b2", count: 32)
        try await harness.register("live", ["apns_token": .string(live)])
        try await harness.register("gone", ["apns_token": .string(gone)])
        try await harness.register("fcm-gone", ["fcm_token": "fcm-gone"])
        harness.emulator.script(token: gone, status: 410, reason: "Unregistered")
        harness.fake.script(token: "fcm-gone", [.init(status: 404, code: "UNREGISTERED")])

        let reply = try await harness.api.call("POST", "/v1/uninstall-checks", key: harness.api.serverKey)
        let messageID = try #require(reply.json["message_id"]?.stringValue)
        harness.clock.advance(by: .seconds(5))
        let answeredAt = harness.clock.now.millisecondsSince1970
        try await harness.worker().drain()

        let delivered = await harness.emulator.collect(token: live)
        #expect(delivered.count == 1)
        #expect(delivered.first?.payload["tidings"]?["internal"] == true)
        #expect(delivered.first?.pushType == "background")
        #expect(delivered.first?.priority == 5)

        let events = try harness.store.events(appID: harness.api.appID, query: EventQuery(type: .uninstall)).events
        let byInstallation = Dictionary(uniqueKeysWithValues: events.map { ($0.event.installationID, $0.event) })
        #expect(Set(byInstallation.keys) == ["gone", "fcm-gone"])
        let apnsUninstall = try #require(byInstallation["gone"])
        #expect(apnsUninstall.occurredAt == answeredAt, "APNs' timestamp")
        #expect(apnsUninstall.attributes?["provider_timestamp"] == .integer(answeredAt))
        #expect(apnsUninstall.messageID == messageID)
        #expect(apnsUninstall.token == gone)
        #expect(apnsUninstall.tokenType == .apns)
        #expect(byInstallation["fcm-gone"]?.tokenType == .fcm)
        #expect(try harness.installation("gone")?.apnsToken == nil)
        #expect(try harness.installation("fcm-gone")?.fcmToken == nil)
        #expect(try harness.installation("live")?.apnsToken == live)
        #expect(harness.counter("tidings_uninstalls_recorded_total") == 2)

        let status = try await harness.status(messageID)
        #expect(status.json["kind"] == "uninstall_check")
        #expect(status.count("sent") == 1)
        #expect(status.json["counts"]?["failed_by_reason"]?["Unregistered"] == 1)
        await harness.close()
    }

    @Test func anOrdinaryMessagesGoneTokenRecordsNoUninstall() async throws {
        let harness = try SendingHarness()
        let gone = String(repeating: "b2", count: 32)
        try await harness.register("gone", ["apns_token": .string(gone)])
        harness.emulator.script(token: gone, status: 410, reason: "Unregistered")
        // APNs' timestamp must be later than the token's registration for the 410 to take it away.
        harness.clock.advance(by: .seconds(1))
        _ = try await harness.sendAlertToAll()
        try await harness.worker().drain()
        #expect(try harness.store.events(appID: harness.api.appID, query: EventQuery(type: .uninstall)).events.isEmpty)
        #expect(try harness.installation("gone")?.apnsToken == nil)
        await harness.close()
    }

    @Test func a410OlderThanTheTokensRegistrationRecordsNoUninstallAndKeepsTheToken() async throws {
        // Apple's clock says the token went away before the device presented it again: the app is back.
        let appleClock = ManualClock(now: APIHarness.startDate)
        let harness = try SendingHarness(emulatorClock: appleClock)
        let back = String(repeating: "c3", count: 32)
        harness.clock.advance(by: .seconds(10))
        try await harness.register("back", ["apns_token": .string(back)])
        harness.emulator.script(token: back, status: 410, reason: "Unregistered")
        _ = try await harness.api.call("POST", "/v1/uninstall-checks", key: harness.api.serverKey)
        try await harness.worker().drain()
        #expect(try harness.installation("back")?.apnsToken == back)
        #expect(try harness.store.events(appID: harness.api.appID, query: EventQuery(type: .uninstall)).events.isEmpty)
        #expect(harness.counter("tidings_uninstalls_recorded_total") == 0)
        await harness.close()
    }
}
