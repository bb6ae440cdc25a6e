import Foundation
import Testing
import TidingsModel
import TidingsServer
import TidingsStoreTesting

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

    /// People who open through a button only: the console once showed "Actions 400.0%" of "Opened".
    @Test(arguments: StoreBackend.allCases)
    func anOpenThroughAButtonIsAnOpenAndNoRatePassesOne(_ backend: StoreBackend) async throws {
        let fixture = try MessageFixture(backend: backend)
        let harness = fixture.harness
        for index in 1...4 { try await fixture.register("inst-\(index)", seed: index) }
        let buttons: JSONValue = [
            ["id": "buy", "title": "Buy", "action": ["type": "open_app"]],
            ["id": "later", "title": "Later", "action": ["type": "dismiss"]],
        ]
        let reply = try await fixture.send([
            "target": ["all": true], "campaign_id": "spring",
            "variants": [
                ["id": "a", "weight": 1, "content": ["title": "A", "buttons": buttons]],
                ["id": "b", "weight": 1, "content": ["title": "B", "buttons": buttons]],
            ],
        ])
        #expect(reply.status == 202, "\(reply.json)")
        let messageID = try #require(reply.json["message_id"]?.stringValue)
        try await fixture.worker().drain()
        func event(_ type: String, _ installation: Int, action: String? = nil) -> JSONValue {
            harness.event(
                type, installation: "inst-\(installation)", message: messageID, campaign: "spring",
                extra: action.map { ["action_id": .string($0)] } ?? [:])
        }
        // inst-1 opens through Buy with no delivery event (no extension), inst-2 through Buy after one, inst-3
        // taps Later (which does not open the app), inst-4 taps the body.
        let events: [JSONValue] = [
            event("action", 1, action: "buy"), event("delivery", 2), event("action", 2, action: "buy"),
            event("delivery", 3), event("action", 3, action: "later"), event("delivery", 4), event("open", 4),
        ]
        let posted = try await harness.postAsDevices(events)
        #expect(posted.json["receipts"]?.arrayValue?.allSatisfy { $0["status"] == "accepted" } == true)

        let stats = try await harness.call("GET", "/v1/messages/\(messageID)/stats", key: harness.serverKey)
        #expect(stats.status == 200)
        let funnel = stats.json
        #expect(funnel["unique"]?["delivered"] == 4, "an open shows the push arrived")
        #expect(funnel["unique"]?["opened"] == 3, "inst-1, inst-2 through Buy and inst-4 through the body")
        #expect(funnel["opened"] == 3, "one open event and two Buy actions")
        #expect(funnel["unique"]?["actions"] == 3)
        #expect(funnel["actions"] == 3)
        #expect(funnel["rates"]?["open_rate"] == 0.75)
        #expect(funnel["rates"]?["action_rate"] == 0.75)
        let message = try await fixture.status(messageID)
        #expect(message.json["funnel"]?["rates"] == funnel["rates"], "the message page and the stats agree")
        let campaign = try await harness.call("GET", "/v1/campaigns/spring/stats", key: harness.serverKey)
        #expect(campaign.json["unique"] == funnel["unique"], "the campaign of one message counts as the message")
        #expect(campaign.json["opened"] == 3)
        #expect(campaign.json["rates"] == funnel["rates"])

        let variants = try #require(funnel["variants"]?.arrayValue)
        #expect(variants.count == 2)
        func total(_ stage: String) -> Int64 {
            variants.reduce(0) { sum, variant in
                guard case .integer(let count)? = variant["unique"]?[stage] else { return sum }
                return sum + count
            }
        }
        #expect(total("delivered") == 4)
        #expect(total("opened") == 3, "per-variant funnels count button opens too")
        // A whole number (0, 1, 4) comes back from the JSON as an integer.
        func number(_ value: JSONValue?) -> Double? {
            switch value {
            case .double(let double)?: double
            case .integer(let integer)?: Double(integer)
            default: nil
            }
        }
        for group in variants + [funnel] {
            for (name, rate) in group["rates"]?.objectValue ?? [:] where rate != .null {
                let value = try #require(number(rate), "\(name) \(rate)")
                #expect(value <= 1, "\(name) \(value)")
            }
        }
        if let difference = variants.last?["open_rate_difference"] {
            // Each variant's open rate is its opened over its delivered, both counting inst-1.
            func rate(_ variant: JSONValue) -> Double {
                guard let opened = number(variant["unique"]?["opened"]),
                    let delivered = number(variant["unique"]?["delivered"]), delivered > 0
                else { return 0 }
                return opened / delivered
            }
            let value = try #require(number(difference["difference"]), "\(difference)")
            #expect(abs(value - (rate(variants[1]) - rate(variants[0]))) < 0.0001)
        }
    }
}

/// `opens_app` on `action` events: the SDK's word on whether a button opened the app wins over what the
/// message's payload says; events without it keep the payload's answer.
@Suite struct OpensAppFlagTests {
    @Test(arguments: StoreBackend.allCases)
    func theFlagWinsOverThePayloadAndItsAbsenceKeepsThePayloadsAnswer(_ backend: StoreBackend) async throws {
        let fixture = try MessageFixture(backend: backend)
        let harness = fixture.harness
        for index in 1...5 { try await fixture.register("inst-\(index)", seed: index) }
        let reply = try await fixture.send([
            "target": ["all": true],
            "content": [
                "title": "Sale",
                "buttons": [
                    ["id": "buy", "title": "Buy", "action": ["type": "open_app"]],
                    ["id": "later", "title": "Later", "action": ["type": "dismiss"]],
                ],
            ],
        ])
        let messageID = try #require(reply.json["message_id"]?.stringValue)
        try await fixture.worker().drain()
        func action(_ installation: Int, _ button: String, opensApp: Bool?) -> JSONValue {
            var extra: [String: JSONValue] = ["action_id": .string(button)]
            if let opensApp { extra["opens_app"] = .bool(opensApp) }
            return harness.event(
                "action", installation: "inst-\(installation)", message: messageID, campaign: nil, extra: extra)
        }
        let events: [JSONValue] = [
            // The SDK says Later opened the app (the app registered it with the foreground option).
            action(1, "later", opensApp: true),
            // The SDK says Buy did not (the app re-registered it without).
            action(2, "buy", opensApp: false),
            // An older SDK: the payload says Buy opens the app.
            action(3, "buy", opensApp: nil),
            // The app's own button, not in the payload, reported as opening the app.
            action(4, "keep", opensApp: true),
            // The app's own button from an older SDK: nothing says it opened the app.
            action(5, "keep", opensApp: nil),
        ]
        let posted = try await harness.postAsDevices(events)
        #expect(posted.json["receipts"]?.arrayValue?.allSatisfy { $0["status"] == "accepted" } == true)
        let stats = try await harness.call("GET", "/v1/messages/\(messageID)/stats", key: harness.serverKey)
        #expect(stats.json["unique"]?["opened"] == 3, "inst-1, inst-3 and inst-4")
        #expect(stats.json["opened"] == 3)
        #expect(stats.json["unique"]?["actions"] == 5)

        // The flag is kept as it came, and answered.
        let listed = try await harness.call(
            "GET", "/v1/events", key: harness.serverKey, query: [("message_id", messageID), ("type", "action")])
        let stored = listed.json["events"]?.arrayValue ?? []
        #expect(stored.first { $0["installation_id"] == "inst-2" }?["opens_app"] == false, "\(listed.json)")
        #expect(stored.first { $0["installation_id"] == "inst-3" }?["opens_app"] == nil)

        let wrong = try await harness.postAsDevices([
            harness.event(
                "action", installation: "inst-1", message: messageID, campaign: nil,
                extra: ["action_id": "buy", "opens_app": "yes"])
        ])
        #expect(wrong.json["receipts"]?[0]?["status"] == "rejected", "\(wrong.json)")
    }
}
