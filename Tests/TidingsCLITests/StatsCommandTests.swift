import Foundation
import Testing
import TidingsModel

/// `tidings stats MESSAGE_ID|--campaign ID` against a real tidingsd API over loopback.
@Suite struct StatsCommandTests {
    @Test func messageAndCampaignFunnels() async throws {
        let backend = try APIBackend()
        for index in 0..<4 { try await backend.register("phone-\(index)") }
        let sent = try await backend.tidingsConnected([
            "send", "--all", "--title", "Sale", "--campaign", "spring", "--wait", "--json",
        ])
        #expect(sent.status == 0, "\(sent.standardError)")
        let id = try #require(try JSONValue.parse(sent.standardOutput)["message_id"]?.stringValue)
        let now = Date().millisecondsSince1970
        func event(_ type: EventType, _ installation: Int) -> TidingsEvent {
            TidingsEvent(
                type: type, occurredAt: now, installationID: "phone-\(installation)", messageID: id,
                campaignID: "spring", source: .app, appState: .foreground)
        }
        // Four delivered, two opened (one of them twice), one dismissed, one deep link.
        try await backend.post([
            event(.delivery, 0), event(.delivery, 1), event(.delivery, 2), event(.delivery, 3), event(.open, 0),
            event(.open, 0), event(.open, 1), event(.dismiss, 2), event(.deeplinkOpen, 1),
        ])

        let table = try await backend.tidingsConnected(["stats", id])
        #expect(table.status == 0, "\(table.standardError)")
        let lines = table.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains("Message   \(id)"))
        #expect(lines.contains("Campaign  spring"))
        #expect(lines.contains("State     done"))
        #expect(lines.contains("STAGE           EVENTS  INSTALLATIONS   RATE"))
        #expect(lines.contains("targets              4"))
        #expect(lines.contains("sent                 4"))
        #expect(lines.contains("delivered            4              4"))
        #expect(lines.contains("opened               3              2  50.0%"))
        #expect(lines.contains("dismissed            1              1  25.0%"))
        #expect(lines.contains("deeplink opens       1              1"))
        #expect(lines.contains("clicks (links)                         25.0%"))

        let json = try await backend.tidingsConnected(["stats", id, "--json"])
        let answer = try JSONValue.parse(json.standardOutput)
        #expect(answer["funnel"]?["opened"] == 3)
        #expect(answer["funnel"]?["unique"]?["opened"] == 2)
        #expect(answer["counts"]?["sent"] == 4)

        let campaign = try await backend.tidingsConnected(["stats", "--campaign", "spring"])
        #expect(campaign.status == 0, "\(campaign.standardError)")
        let campaignLines = campaign.standardOutput.split(separator: "\n").map(String.init)
        #expect(campaignLines.contains("Campaign       spring"))
        #expect(campaignLines.contains("Installations  4"))
        #expect(campaignLines.contains("opened               3              2  50.0%"))
        #expect(!campaignLines.contains { $0.hasPrefix("targets") })
        let campaignJSON = try await backend.tidingsConnected(["stats", "--campaign", "spring", "--json"])
        #expect(try JSONValue.parse(campaignJSON.standardOutput)["delivered"] == 4)
        await backend.stop()
    }

    /// A local-time message shows its due times: the next one, and per due time its UTC offset and what waits.
    @Test func aLocalTimeMessageShowsItsSchedule() async throws {
        let backend = try APIBackend()
        _ = try await backend.register("phone-kathmandu", context: ["timezone": "Asia/Kathmandu"])
        // Twelve hours ahead read as UTC: resolved at once, due in Kathmandu (UTC+5:45) in about six hours.
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let wall = calendar.dateComponents(
            [.year, .month, .day, .hour, .minute], from: Date().addingTimeInterval(12 * 3600))
        let localTime = String(
            format: "%04d-%02d-%02dT%02d:%02d", wall.year!, wall.month!, wall.day!, wall.hour!, wall.minute!)
        let sent = try await backend.tidingsConnected([
            "send", "--all", "--title", "Sale", "--local-time", localTime, "--json",
        ])
        #expect(sent.status == 0, "\(sent.standardError)")
        let id = try #require(try JSONValue.parse(sent.standardOutput)["message_id"]?.stringValue)

        let table = try await backend.tidingsConnected(["stats", id])
        #expect(table.status == 0, "\(table.standardError)")
        let lines = table.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains("Local time  \(localTime)"))
        #expect(lines.contains { $0.hasPrefix("Next due    \(localTime.prefix(4))") })
        #expect(lines.contains { $0.split(separator: " ").first == "DUE" && $0.contains("OFFSET") })
        let row = lines.first { $0.contains("+05:45") }?.split(separator: " ").map(String.init)
        #expect(row?.dropFirst() == ["+05:45", "1", "0", "0", "0", "0"])

        // Cancelled, the zone's delivery stops waiting and is counted in its own column.
        let cancelled = try await backend.tidingsConnected(["cancel", id])
        #expect(cancelled.status == 0, "\(cancelled.standardError)")
        #expect(cancelled.standardOutput.contains("1 cancelled, 0 sent, 0 failed, 0 skipped, of 1 targets"))
        #expect(try await backend.tidingsConnected(["cancel"]).status == 2)
        let after = try await backend.tidingsConnected(["stats", id])
        let cancelledRow = after.standardOutput.split(separator: "\n").first { $0.contains("+05:45") }
        #expect(
            cancelledRow?.split(separator: " ").dropFirst().map(String.init)
                == ["+05:45", "0", "0", "0", "0", "1"] as [String])

        let json = try await backend.tidingsConnected(["stats", id, "--json"])
        let answer = try JSONValue.parse(json.standardOutput)
        #expect(answer["local_schedule"]?["zones"]?.arrayValue?.first?["utc_offset"] == "+05:45")
        await backend.stop()
    }

    /// People who open through a button only: `tidings stats` once showed actions at 400%.
    @Test func anOpenThroughAButtonIsAnOpenAndNoRatePassesAHundredPercent() async throws {
        let backend = try APIBackend()
        for index in 0..<4 { try await backend.register("phone-\(index)") }
        let sent = try await backend.tidingsConnected([
            "send", "--all", "--title", "Sale", "--button", "buy:Buy", "--wait", "--json",
        ])
        #expect(sent.status == 0, "\(sent.standardError)")
        let id = try #require(try JSONValue.parse(sent.standardOutput)["message_id"]?.stringValue)
        let now = Date().millisecondsSince1970
        func event(_ type: EventType, _ installation: Int) -> TidingsEvent {
            TidingsEvent(
                type: type, occurredAt: now, installationID: "phone-\(installation)", messageID: id, source: .app,
                appState: .background, actionID: type == .action ? "buy" : nil)
        }
        // Three open the app through Buy, only one of them after a delivery event (no extension on the
        // others); the fourth gets it and does nothing.
        try await backend.post([
            event(.delivery, 0), event(.action, 0), event(.action, 1), event(.action, 2), event(.delivery, 3),
        ])

        let table = try await backend.tidingsConnected(["stats", id])
        #expect(table.status == 0, "\(table.standardError)")
        let lines = table.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains("delivered            2              4"), "\(table.standardOutput)")
        #expect(lines.contains("opened               3              3  75.0%"))
        #expect(lines.contains("actions              3              3  75.0%"))
        let rates = table.standardOutput.split(whereSeparator: \.isWhitespace).filter { $0.hasSuffix("%") }
        #expect(!rates.isEmpty)
        #expect(rates.allSatisfy { (Double($0.dropLast()) ?? 101) <= 100 }, "\(rates)")

        let json = try JSONValue.parse(try await backend.tidingsConnected(["stats", id, "--json"]).standardOutput)
        #expect(json["funnel"]?["unique"]?["opened"] == 3)
        #expect(json["funnel"]?["rates"]?["open_rate"] == 0.75)
        await backend.stop()
    }

    /// The overview's open rate as the console shows it: opens of the deliveries in the window, never above
    /// 100%, the same figure as the API's.
    @Test func theOverviewShowsTheOpenRateTheAPIAndConsoleShow() async throws {
        let backend = try APIBackend(sending: false)
        for index in 0..<3 { try await backend.register("phone-\(index)") }
        let now = Date().millisecondsSince1970
        // An old message delivered before the window and opened now, and one delivered now to two phones,
        // one of which opens it.
        try await backend.post([
            TidingsEvent(
                type: .delivery, occurredAt: now - 20 * 86_400_000, installationID: "phone-0", messageID: "old"),
            TidingsEvent(type: .open, occurredAt: now, installationID: "phone-0", messageID: "old"),
            TidingsEvent(type: .delivery, occurredAt: now, installationID: "phone-1", messageID: "new"),
            TidingsEvent(type: .open, occurredAt: now, installationID: "phone-1", messageID: "new"),
            TidingsEvent(type: .delivery, occurredAt: now, installationID: "phone-2", messageID: "new"),
        ])
        let table = try await backend.tidingsConnected(["stats", "--overview", "--days", "7"])
        #expect(table.status == 0, "\(table.standardError)")
        let rows = table.standardOutput.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        #expect(rows.contains("delivered 2"), "\(table.standardOutput)")
        #expect(rows.contains("opened 1"))
        #expect(rows.contains("open rate 50.0%"))
        let api = try await backend.call("GET", "/v1/stats/overview", key: backend.serverKey)
        let json = try await backend.tidingsConnected(["stats", "--overview", "--json"])
        #expect(try JSONValue.parse(json.standardOutput)["totals"] == api.json["totals"])
        #expect(api.json["totals"]?["open_rate"] == 0.5)
        for bad in [
            ["stats", "--overview", "--days", "0"], ["stats", "--overview", "msg_x"], ["stats", "msg", "--days", "3"],
        ] {
            #expect(try await backend.tidingsConnected(bad).status == 2, "\(bad)")
        }
        await backend.stop()
    }

    @Test func conversionsArePrintedPerVariantWithTheirIntervals() async throws {
        let backend = try APIBackend()
        for index in 0..<6 { try await backend.register("phone-\(index)") }
        let reply = try await backend.call(
            "POST", "/v1/messages", key: backend.serverKey,
            [
                "target": ["all": true], "campaign_id": "cli-split",
                "variants": [["id": "a", "content": ["title": "A"]], ["id": "b", "content": ["title": "B"]]],
                "conversion": ["event": "purchase", "within": "2h", "from": "delivery"],
            ])
        #expect(reply.status == 202, "\(reply.json)")
        let id = try #require(reply.json["message_id"]?.stringValue)
        var answer = JSONValue.null
        for _ in 0..<100 {
            answer = try await backend.call("GET", "/v1/messages/\(id)", key: backend.serverKey).json
            if answer["state"] == "done" { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        let table = try await backend.tidingsConnected(["stats", id])
        #expect(table.status == 0, "\(table.standardError)")
        let lines = table.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains("CONVERSIONS (purchase within 2h of delivery)"), "\(table.standardOutput)")
        let variants = answer["funnel"]?["variants"]?.arrayValue ?? []
        #expect(variants.count == 2)
        for variant in variants {
            let name = variant["variant"]?.stringValue ?? "?"
            let recipients = variant["conversions"]?["recipients"]?.integerValue ?? -1
            #expect(
                lines.contains { $0.hasPrefix(name + " ") && $0.contains(" \(recipients) ") && $0.contains(" 0.0% ") },
                "\(name): \(table.standardOutput)")
        }
        await backend.stop()
    }

    @Test func anUnknownMessageIsOneLineAndExitOne() async throws {
        let backend = try APIBackend(sending: false)
        let result = try await backend.tidingsConnected(["stats", "msg_nope"])
        #expect(result.status == 1)
        #expect(result.standardOutput.isEmpty)
        #expect(
            result.standardError
                == "tidings: \(backend.endpoint) answered 404 not_found: there is no message msg_nope\n")

        let both = try await backend.tidingsConnected(["stats", "msg_x", "--campaign", "c"])
        #expect(both.status == 2)
        let neither = try await backend.tidingsConnected(["stats"])
        #expect(neither.status == 2)
        #expect(neither.standardError.contains("give a MESSAGE_ID or --campaign ID"))
        await backend.stop()
    }
}
