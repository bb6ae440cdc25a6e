import Foundation
import Testing
import TidingsModel
import TidingsServer
import TidingsStore
import TidingsTesting

/// The SDK-facing routes that register, refresh, list and remove Live Activity tokens.
@Suite struct LiveActivityTokenAPITests {
    static func laToken(_ seed: Int) -> String { String(repeating: String(format: "%02x", seed % 256), count: 40) }

    func registered() async throws -> APIHarness {
        let harness = try APIHarness()
        try await harness.register("inst-1", ["apns_token": .string(APIHarness.token(1)), "environment": "sandbox"])
        return harness
    }

    @Test func anUpdateTokenIsCreatedThenRefreshedAndListed() async throws {
        let harness = try await registered()
        let path = "/v1/installations/inst-1/live-activities/order-42"
        let created = try await harness.call(
            "PUT", path, key: harness.appKey,
            json: ["token": .string(Self.laToken(7).uppercased()), "attributes_type": "DeliveryAttributes"])
        #expect(created.status == 201)
        #expect(created.json["token"]?.stringValue == Self.laToken(7), "stored in lower case")
        #expect(created.json["environment"]?.stringValue == "sandbox", "the installation's environment by default")
        #expect(created.json["activity_id"]?.stringValue == "order-42")
        harness.clock.advance(by: .seconds(60))
        let refreshed = try await harness.call(
            "PUT", path, key: harness.appKey,
            json: ["token": .string(Self.laToken(8)), "attributes_type": "DeliveryAttributes"])
        #expect(refreshed.status == 200)
        #expect(refreshed.json["updated_at"]?.integerValue == harness.now)
        #expect(refreshed.json["created_at"]?.integerValue == harness.now - 60_000, "a refresh keeps the creation")
        let start = try await harness.call(
            "PUT", "/v1/installations/inst-1/push-to-start-tokens/DeliveryAttributes", key: harness.appKey,
            json: ["token": .string(Self.laToken(9)), "environment": "production"])
        #expect(start.status == 201)
        let listed = try await harness.call("GET", "/v1/installations/inst-1/live-activities", key: harness.appKey)
        #expect(listed.status == 200)
        #expect(listed.json["activities"]?.arrayValue?.map { $0["token"]?.stringValue } == [Self.laToken(8)])
        #expect(listed.json["push_to_start_tokens"]?[0]?["attributes_type"]?.stringValue == "DeliveryAttributes")
        #expect(listed.json["push_to_start_tokens"]?[0]?["environment"]?.stringValue == "production")
        let byActivity = try await harness.call("GET", "/v1/live-activities/order-42", key: harness.serverKey)
        #expect(byActivity.json["installations"]?.arrayValue?.count == 1)
    }

    @Test func removalAnswers204ThenNotFound() async throws {
        let harness = try await registered()
        let path = "/v1/installations/inst-1/live-activities/order-42"
        _ = try await harness.call(
            "PUT", path, key: harness.appKey, json: ["token": .string(Self.laToken(7)), "attributes_type": "A"])
        #expect(try await harness.call("DELETE", path, key: harness.appKey).status == 204)
        let again = try await harness.call("DELETE", path, key: harness.appKey)
        #expect(again.status == 404)
        #expect(again.errorMessage.contains("order-42"))
        let startPath = "/v1/installations/inst-1/push-to-start-tokens/A"
        _ = try await harness.call("PUT", startPath, key: harness.appKey, json: ["token": .string(Self.laToken(9))])
        #expect(try await harness.call("DELETE", startPath, key: harness.appKey).status == 204)
        #expect(try await harness.call("GET", "/v1/live-activities/order-42", key: harness.serverKey).status == 404)
    }

    static let badBodies: [(JSONValue, String)] = [
        (["attributes_type": "A"], "invalid_token"),
        (["token": "abc", "attributes_type": "A"], "invalid_token"),
        (["token": .string(String(repeating: "zz", count: 40)), "attributes_type": "A"], "invalid_token"),
        (["token": .string(String(repeating: "ab", count: 257)), "attributes_type": "A"], "invalid_token"),
        (["token": .string(laToken(1))], "invalid_field"),
        (["token": .string(laToken(1)), "attributes_type": "has space"], "invalid_field"),
        (["token": .string(laToken(1)), "attributes_type": "A", "environment": "staging"], "invalid_field"),
        (["token": .string(laToken(1)), "attributes_type": "A", "colour": "red"], "invalid_field"),
    ]

    @Test(arguments: badBodies)
    func aBadTokenBodyIsRefusedWithACode(_ body: JSONValue, _ code: String) async throws {
        let harness = try await registered()
        let reply = try await harness.call(
            "PUT", "/v1/installations/inst-1/live-activities/order-42", key: harness.appKey, json: body)
        #expect(reply.status == 400)
        #expect(reply.errorCode == code)
        let listed = try await harness.call("GET", "/v1/installations/inst-1/live-activities", key: harness.appKey)
        #expect(listed.json["activities"]?.arrayValue?.isEmpty == true, "nothing was stored")
    }

    @Test func ownershipAndAppsAreEnforced() async throws {
        let harness = try await registered()
        let path = "/v1/installations/inst-1/live-activities/order-42"
        let body: JSONValue = ["token": .string(Self.laToken(7)), "attributes_type": "A"]
        let noSecret = try await harness.call("PUT", path, key: harness.appKey, json: body, presentSecret: false)
        #expect(noSecret.status == 403)
        #expect(noSecret.errorCode == "installation_secret_required")
        let wrongSecret = try await harness.call(
            "PUT", path, key: harness.appKey, json: body,
            headers: [("X-Tidings-Installation-Secret", "tdg_is_wrong")])
        #expect(wrongSecret.errorCode == "installation_secret_invalid")
        let unknown = try await harness.call(
            "PUT", "/v1/installations/inst-9/live-activities/order-42", key: harness.appKey, json: body)
        #expect(unknown.status == 404)
        let otherApp = try await harness.call("PUT", path, key: harness.otherAppKey, json: body)
        #expect(otherApp.status == 404, "another app does not see the installation")
        #expect(try await harness.call("PUT", path, json: body).status == 401)
        #expect(try await harness.call("PUT", path, key: harness.serverKey, json: body).status == 201)
        let listByApp = try await harness.call("GET", "/v1/live-activities/order-42", key: harness.appKey)
        #expect(listByApp.status == 403, "listing an activity's installations needs a server key")
    }

    @Test func aTokenMovesToTheInstallationThatRegistersItLast() async throws {
        let harness = try await registered()
        try await harness.register("inst-2", ["apns_token": .string(APIHarness.token(2))])
        let body: JSONValue = ["token": .string(Self.laToken(7)), "attributes_type": "A"]
        _ = try await harness.call(
            "PUT", "/v1/installations/inst-1/live-activities/a1", key: harness.appKey, json: body)
        _ = try await harness.call(
            "PUT", "/v1/installations/inst-2/live-activities/a2", key: harness.appKey, json: body)
        #expect(try harness.store.liveActivityTokens(appID: harness.appID, activityID: "a1").isEmpty)
        #expect(
            try harness.store.liveActivityTokens(appID: harness.appID, activityID: "a2").map(\.installationID) == [
                "inst-2"
            ])
    }
}
