import Foundation
import Testing
import TidingsModel
import TidingsTesting

@testable import TidingsCrypto
@testable import TidingsHTTP
@testable import TidingsPush

/// The emulator's answers to pushes, called in process through the standard pipeline.
@Suite("APNs emulator: validation")
struct EmulatorValidationTests {
    static let token = String(repeating: "ab", count: 32)
    static let topic = "com.example.app"
    let harness = EmulatorHarness()

    @Test func acceptedPushEchoesApnsIDAndIsStored() async throws {
        let id = "123e4567-e89b-12d3-a456-426614174000"
        let response = try await harness.push(headers: [
            "apns-id": id, "apns-collapse-id": "c1", "apns-expiration": "0",
        ])
        #expect(response.status == 200)
        #expect(response.headers["apns-id"] == id)
        let received = await harness.emulator.collect(token: Self.token)
        #expect(received.count == 1)
        #expect(received.first?.apnsID == id)
        #expect(received.first?.collapseID == "c1")
        #expect(received.first?.expiration == 0)
        #expect(received.first?.pushType == "alert")
        #expect(received.first?.priority == 10)
        #expect(received.first?.payload == ["aps": ["alert": "hi"]])
        #expect(await harness.emulator.collect(token: Self.token).isEmpty)
    }

    @Test func generatedApnsIDIsAUUID() async throws {
        let response = try await harness.push()
        #expect(response.status == 200)
        #expect(UUID(uuidString: response.headers["apns-id"] ?? "") != nil)
    }

    @Test(arguments: [
        ("abc", "BadDeviceToken"),
        (String(repeating: "a", count: 65), "BadDeviceToken"),
        (String(repeating: "zz", count: 32), "BadDeviceToken"),
        (String(repeating: "a", count: 62), "BadDeviceToken"),
    ])
    func badDeviceTokens(token: String, reason: String) async throws {
        let response = try await harness.push(token: token)
        #expect(response.status == 400)
        #expect(try harness.reason(response) == reason)
    }

    @Test func longerEvenTokensAreAccepted() async throws {
        #expect(try await harness.push(token: String(repeating: "0f", count: 50)).status == 200)
    }

    @Test func missingDeviceToken() async throws {
        let response = try await harness.handler(HTTPRequest(method: "POST", path: "/3/device", body: Data("{}".utf8)))
        #expect(response.status == 400)
        #expect(try harness.reason(response) == "MissingDeviceToken")
    }

    @Test func providerTokenChecks() async throws {
        var response = try await harness.push(authorization: .some(nil))
        #expect(response.status == 403)
        #expect(try harness.reason(response) == "MissingProviderToken")
        response = try await harness.push(authorization: "bearer not-a-jwt")
        #expect(try harness.reason(response) == "InvalidProviderToken")
        response = try await harness.push(authorization: "basic abc")
        #expect(try harness.reason(response) == "InvalidProviderToken")
        let otherKey = try APNsProviderToken(
            key: ES256Key.generate(), configuration: .init(keyID: EmulatorHarness.keyID, teamID: EmulatorHarness.teamID)
        )
        response = try await harness.push(authorization: try otherKey.authorizationHeader(now: harness.clock.now))
        #expect(response.status == 403)
        #expect(try harness.reason(response) == "InvalidProviderToken")
        let old = try harness.provider.authorizationHeader(now: harness.clock.now.addingTimeInterval(-3700))
        response = try await harness.push(authorization: old)
        #expect(response.status == 403)
        #expect(try harness.reason(response) == "ExpiredProviderToken")
    }

    @Test(
        arguments: [
            (["apns-topic": ""], 400, "MissingTopic"),
            (["apns-topic": "com.other.app"], 400, "TopicDisallowed"),
            (["apns-push-type": "shout"], 400, "InvalidPushType"),
            (["apns-priority": "7"], 400, "BadPriority"),
            (["apns-priority": "high"], 400, "BadPriority"),
            (["apns-push-type": "background", "apns-priority": "10"], 400, "BadPriority"),
            (["apns-expiration": "tomorrow"], 400, "BadExpirationDate"),
            (["apns-expiration": "-1"], 400, "BadExpirationDate"),
            (["apns-collapse-id": String(repeating: "c", count: 65)], 400, "BadCollapseId"),
            (["apns-id": "not-a-uuid"], 400, "BadMessageId"),
        ] as [([String: String], Int, String)])
    func headerChecks(headers: [String: String], status: Int, reason: String) async throws {
        let response = try await harness.push(headers: headers)
        #expect(response.status == status)
        #expect(try harness.reason(response) == reason)
    }

    @Test func backgroundPushDefaultsToPriorityFive() async throws {
        #expect(try await harness.push(headers: ["apns-push-type": "background"]).status == 200)
        #expect(await harness.emulator.collect(token: Self.token).first?.priority == 5)
    }

    @Test func voipTopicSuffixIsAllowed() async throws {
        let response = try await harness.push(headers: ["apns-push-type": "voip", "apns-topic": Self.topic + ".voip"])
        #expect(response.status == 200)
    }

    @Test func duplicateHeadersAreRefused() async throws {
        var headers = harness.baseHeaders()
        headers.add(name: "apns-priority", value: "5")
        headers.add(name: "apns-priority", value: "10")
        let response = try await harness.handler(
            HTTPRequest(method: "POST", path: "/3/device/\(Self.token)", headers: headers, body: harness.payload))
        #expect(try harness.reason(response) == "DuplicateHeaders")
    }

    @Test func deviceRegisteredForAnotherTopic() async throws {
        harness.emulator.registerDevice(token: Self.token, topic: "com.example.other")
        let response = try await harness.push()
        #expect(response.status == 400)
        #expect(try harness.reason(response) == "DeviceTokenNotForTopic")
    }

    @Test(arguments: [
        (Data(), 400, "PayloadEmpty"),
        (Data("  \n".utf8), 400, "PayloadEmpty"),
        (Data("[1]".utf8), 400, "BadPayload"),
        (Data("{\"aps\":".utf8), 400, "BadPayload"),
        (Data(("{\"a\":\"" + String(repeating: "x", count: 4090) + "\"}").utf8), 413, "PayloadTooLarge"),
    ])
    func payloadChecks(body: Data, status: Int, reason: String) async throws {
        let response = try await harness.push(body: body)
        #expect(response.status == status)
        #expect(try harness.reason(response) == reason)
    }

    @Test func payloadAtTheLimitIsAccepted() async throws {
        let alert = "{\"a\":\"" + String(repeating: "x", count: 4096 - 8) + "\"}"
        #expect(alert.utf8.count == 4096)
        #expect(try await harness.push(body: Data(alert.utf8)).status == 200)
        let voip = "{\"a\":\"" + String(repeating: "x", count: 5120 - 8) + "\"}"
        let response = try await harness.push(
            headers: ["apns-push-type": "voip", "apns-topic": Self.topic + ".voip"], body: Data(voip.utf8))
        #expect(response.status == 200)
    }

    @Test func wrongMethodIsRefused() async throws {
        let response = try await harness.handler(HTTPRequest(method: "GET", path: "/3/device/\(Self.token)"))
        #expect(response.status == 405)
    }

    @Test func statsCountAnswers() async throws {
        _ = try await harness.push()
        _ = try await harness.push(token: "abc")
        let response = try await harness.handler(HTTPRequest(method: "GET", path: "/emulator/stats"))
        let stats = try JSONValue.parse(response.body)
        #expect(stats == ["responses": ["200": 1, "400 BadDeviceToken": 1]])
    }
}

@Suite("APNs emulator: provider token reuse")
struct EmulatorTokenReuseTests {
    @Test func reusedTokenExpiresAfterAnHour() async throws {
        let harness = EmulatorHarness()
        let header = try harness.provider.authorizationHeader(now: harness.clock.now)
        #expect(try await harness.push(authorization: header).status == 200)
        #expect(try await harness.push(authorization: header).status == 200)
        harness.clock.advance(by: .seconds(3601))
        let response = try await harness.push(authorization: header)
        #expect(response.status == 403)
        #expect(try harness.reason(response) == "ExpiredProviderToken")
    }
}
