import Foundation
import Testing
import TidingsModel
import TidingsTesting

@testable import TidingsAPNsEmulator
@testable import TidingsHTTP

/// ActivityKit pushes: the emulator's header and `aps` checks, and its log of accepted Live Activity pushes.
@Suite("APNs emulator: Live Activities")
struct EmulatorLiveActivityTests {
    let harness = EmulatorHarness()
    static let topic = EmulatorValidationTests.topic + ".push-type.liveactivity"
    static let headers = ["apns-push-type": "liveactivity", "apns-topic": topic, "apns-priority": "5"]

    func push(_ aps: JSONValue, headers extra: [String: String] = [:]) async throws -> HTTPResponse {
        var headers = Self.headers
        headers.merge(extra) { _, new in new }
        return try await harness.push(headers: headers, body: JSONText.data(["aps": aps]))
    }

    func detail(_ response: HTTPResponse) throws -> String {
        try JSONValue.parse(response.body)["detail"]?.stringValue ?? ""
    }

    @Test func aValidUpdateIsAcceptedStoredAndLogged() async throws {
        let response = try await push(
            [
                "timestamp": 1_800_000_000, "event": "update", "content-state": ["eta": 5], "stale-date": 1_800_000_600,
                "relevance-score": 12.5,
            ])
        #expect(response.status == 200)
        let logged = harness.emulator.liveActivityPushes
        #expect(logged.count == 1)
        #expect(logged.first?.topic == Self.topic)
        #expect(logged.first?.priority == 5)
        let collected = await harness.emulator.collect(topic: EmulatorValidationTests.topic)
        #expect(collected.count == 1, "the bundle id's mailbox holds its Live Activity pushes")
        #expect(harness.emulator.liveActivityPushes.count == 1, "collecting keeps the log")
    }

    @Test func aStartNeedsAttributesAndAnAlert() async throws {
        let start: [String: JSONValue] = [
            "timestamp": 1_800_000_000, "event": "start", "content-state": ["eta": 5],
            "attributes-type": "Delivery", "attributes": ["order": "A-1"], "alert": ["title": "t", "body": "b"],
        ]
        #expect(try await push(.object(start)).status == 200)
        for key in ["attributes-type", "attributes", "alert"] {
            var missing = start
            missing[key] = nil
            let response = try await push(.object(missing))
            #expect(response.status == 400)
            #expect(try harness.reason(response) == "BadPayload")
            #expect(try detail(response).contains(key))
        }
    }

    static let refusals: [(JSONValue, [String: String], String, String)] = [
        (
            ["timestamp": 1, "event": "update", "content-state": [:]], ["apns-topic": EmulatorValidationTests.topic],
            "BadTopic", "push-type.liveactivity"
        ),
        (
            ["timestamp": 1, "event": "update", "content-state": [:]], ["apns-push-type": "alert"], "BadTopic",
            "needs push type liveactivity"
        ),
        (["timestamp": 1, "event": "update", "content-state": [:]], ["apns-priority": "1"], "BadPriority", "5 or 10"),
        (["event": "update", "content-state": [:]], [:], "BadPayload", "timestamp"),
        (["timestamp": "now", "event": "update", "content-state": [:]], [:], "BadPayload", "timestamp"),
        (["timestamp": 1, "content-state": [:]], [:], "BadPayload", "aps.event is required"),
        (["timestamp": 1, "event": "pause", "content-state": [:]], [:], "BadPayload", "start, update or end"),
        (["timestamp": 1, "event": "update"], [:], "BadPayload", "content-state is required"),
        (["timestamp": 1, "event": "update", "content-state": "x"], [:], "BadPayload", "must be an object"),
        (
            ["timestamp": 1, "event": "update", "content-state": [:], "dismissal-date": 5], [:], "BadPayload",
            "only for end"
        ),
        (["timestamp": 1, "event": "end", "stale-date": "soon"], [:], "BadPayload", "stale-date"),
        (["timestamp": 1, "event": "end", "relevance-score": "high"], [:], "BadPayload", "relevance-score"),
    ]

    @Test(arguments: refusals)
    func aMalformedLiveActivityPushIsRefused(
        _ aps: JSONValue, _ headers: [String: String], _ reason: String, _ text: String
    ) async throws {
        let response = try await push(aps, headers: headers)
        #expect(response.status == 400)
        #expect(try harness.reason(response) == reason)
        let detail = try detail(response)
        #expect(detail.contains(text), "\(detail)")
        #expect(harness.emulator.liveActivityPushes.isEmpty)
    }

    @Test func anEndWithoutContentStateIsAccepted() async throws {
        let response = try await push(["timestamp": 1_800_000_000, "event": "end", "dismissal-date": 1_800_000_000])
        #expect(response.status == 200)
    }
}
