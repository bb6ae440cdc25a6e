import Foundation
import Testing
import TidingsModel

@testable import TidingsAPNsEmulator
@testable import TidingsHTTP

/// One long-poll for a whole fleet: `collect(topic:)` and `GET /emulator/topics/{topic}/notifications`.
@Suite struct EmulatorTopicCollectionTests {
    static func notification(token: String, topic: String, alert: String) -> APNsEmulatorNotification {
        APNsEmulatorNotification(
            apnsID: UUID().uuidString.lowercased(), deviceToken: token, topic: topic, pushType: "alert", priority: 10,
            collapseID: nil, expiration: nil, receivedAt: Date(timeIntervalSince1970: 1_800_000_000),
            payload: ["aps": ["alert": .string(alert)]])
    }

    @Test func takesEveryDeviceOfTheTopicAndLeavesOtherApps() async {
        let emulator = APNsEmulator(configuration: .init())
        let (a, b, c) = (
            String(repeating: "a1", count: 32), String(repeating: "b2", count: 32), String(repeating: "c3", count: 32)
        )
        emulator.deliver(Self.notification(token: a, topic: "com.example.shop", alert: "one"))
        emulator.deliver(Self.notification(token: b, topic: "com.example.shop", alert: "two"))
        emulator.deliver(Self.notification(token: c, topic: "com.example.other", alert: "three"))

        let taken = await emulator.collect(topic: "com.example.shop")
        #expect(Set(taken.map(\.deviceToken)) == [a, b])
        #expect(await emulator.collect(topic: "com.example.shop").isEmpty)
        #expect(await emulator.collect(token: c).map(\.payload["aps"]?["alert"]) == ["three"])
    }

    @Test func aWaitingFleetGetsTheNextArrivalBeforeAWaitingDevice() async throws {
        let emulator = APNsEmulator(configuration: .init())
        let token = String(repeating: "d4", count: 32)
        async let device = emulator.collect(token: token, wait: .milliseconds(300))
        async let fleet = emulator.collect(topic: "com.example.shop", wait: .seconds(5))
        try await Task.sleep(for: .milliseconds(100))
        emulator.deliver(Self.notification(token: token, topic: "com.example.shop", alert: "first"))
        #expect(await fleet.map(\.deviceToken) == [token])
        #expect(await device.isEmpty)
    }

    @Test func theWireFormReadsBack() throws {
        var original = Self.notification(token: String(repeating: "e5", count: 32), topic: "t", alert: "x")
        original.collapseID = "sale"
        original.expiration = 1_900_000_000
        #expect(APNsEmulatorNotification(json: original.json) == original)
        #expect(APNsEmulatorNotification(json: ["apns_id": "1"]) == nil)
    }

    @Test func longPollsTheTopicOverHTTP() async throws {
        let emulator = APNsEmulator(configuration: .init())
        let handler = emulator.handler(logger: .disabled())
        emulator.deliver(
            Self.notification(token: String(repeating: "f6", count: 32), topic: "com.example.shop", alert: "hi"))
        let response = try await handler(
            HTTPRequest(
                method: "GET", path: "/emulator/topics/com.example.shop/notifications",
                query: [(name: "wait", value: "1")]))
        #expect(response.status == 200)
        let list = try JSONValue.parse(response.body)["notifications"]?.arrayValue
        #expect(list?.count == 1)
        #expect(list?.first?["payload"]?["aps"]?["alert"] == "hi")

        let bad = try await handler(
            HTTPRequest(
                method: "GET", path: "/emulator/topics/com.example.shop/notifications",
                query: [(name: "wait", value: "soon")]))
        #expect(bad.status == 400)
    }
}
