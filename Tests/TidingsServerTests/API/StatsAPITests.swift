import Foundation
import Testing
import TidingsModel
import TidingsServer

@Suite struct StatsAPITests {
    @Test func theFunnelCountsEqualWhatWasPosted() async throws {
        let harness = try APIHarness()
        for index in 1...4 { try await harness.register("inst-\(index)") }
        var events: [JSONValue] = []
        for index in 1...4 { events.append(harness.event("delivery", installation: "inst-\(index)")) }
        events += [
            harness.event("open", installation: "inst-1"), harness.event("open", installation: "inst-1"),
            harness.event("open", installation: "inst-2"), harness.event("dismiss", installation: "inst-3"),
            harness.event("link_open", installation: "inst-1", extra: ["value": "https://example.com"]),
            harness.event("deeplink_open", installation: "inst-2", extra: ["value": "app://x"]),
            harness.event("action", installation: "inst-2"), harness.event("reply", installation: "inst-1"),
            harness.event("delivery", installation: "inst-1", message: "m2", campaign: "c2"),
        ]
        let posted = try await harness.postAsDevices(events)
        #expect(posted.json["receipts"]?.arrayValue?.allSatisfy { $0["status"] == "accepted" } == true)

        let stats = try await harness.call("GET", "/v1/campaigns/c1/stats", key: harness.serverKey)
        #expect(stats.status == 200)
        let json = stats.json
        #expect(json["campaign_id"] == "c1")
        #expect(json["sent"] == 0)
        #expect(json["failed"] == 0)
        #expect(json["delivered"] == 4)
        #expect(json["opened"] == 3)
        #expect(json["dismissed"] == 1)
        #expect(json["link_open"] == 1)
        #expect(json["deeplink_open"] == 1)
        #expect(json["actions"] == 2)
        #expect(json["unique_installations"] == 4)
        #expect(json["unique"]?["opened"] == 2)
        #expect(json["rates"]?["open_rate"] == 0.5)
        #expect(json["rates"]?["dismiss_rate"] == 0.25)
        #expect(json["rates"]?["click_rate"] == 0.5)

        let message = try await harness.call("GET", "/v1/messages/m2/stats", key: harness.serverKey)
        #expect(message.json["message_id"] == "m2")
        #expect(message.json["delivered"] == 1)
        #expect(message.json["opened"] == 0)
        #expect(message.json["rates"]?["open_rate"] == 0)
    }

    @Test func anUnknownCampaignHasAnEmptyFunnelWithNullRates() async throws {
        let harness = try APIHarness()
        let stats = try await harness.call("GET", "/v1/campaigns/nothing/stats", key: harness.serverKey)
        #expect(stats.status == 200)
        #expect(stats.json["delivered"] == 0)
        #expect(stats.json["rates"]?["open_rate"] == .null)
    }
}
