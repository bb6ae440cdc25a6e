import Foundation
import Testing
import TidingsModel

/// `tidings events query|tail` against a real tidingsd API over loopback.
@Suite struct EventsCommandTests {
    /// Two installations' events for two messages of campaign `spring`, one minute apart from `start`.
    static func events(start: Int64) -> [TidingsEvent] {
        var events: [TidingsEvent] = []
        for (index, type) in [EventType.delivery, .open, .delivery, .dismiss, .delivery].enumerated() {
            events.append(
                TidingsEvent(
                    type: type, occurredAt: start + Int64(index) * 60_000, installationID: "phone-\(index % 2)",
                    messageID: index < 4 ? "msg_a" : "msg_b", campaignID: "spring", source: .app,
                    appState: .foreground))
        }
        return events
    }

    @Test func queryAnswersJSONCSVAndNDJSON() async throws {
        let backend = try APIBackend(sending: false)
        try await backend.register("phone-0")
        try await backend.register("phone-1")
        // A day ago (the server refuses events older than 30 days), on a whole minute.
        let start = Date().millisecondsSince1970 / 60_000 * 60_000 - 86_400_000
        let iso = ISO8601DateFormatter()
        let posted = Self.events(start: start)
        try await backend.post(posted)
        let ids = posted.map { $0.eventID.uuidString.lowercased() }

        let json = try await backend.tidingsConnected(["events", "query", "--json", "--page-size", "2"])
        #expect(json.status == 0, "\(json.standardError)")
        let events = try JSONValue.parse(json.standardOutput)["events"]?.arrayValue ?? []
        #expect(events.compactMap { $0["event_id"]?.stringValue } == ids)

        let filtered = try await backend.tidingsConnected([
            "events", "query", "--json", "--type", "delivery", "--message", "msg_a",
        ])
        let deliveries = try JSONValue.parse(filtered.standardOutput)["events"]?.arrayValue ?? []
        #expect(deliveries.compactMap { $0["event_id"]?.stringValue } == [ids[0], ids[2]])

        let windowed = try await backend.tidingsConnected([
            "events", "query", "--json", "--since", String(start + 60_000), "--until",
            iso.string(from: Date(timeIntervalSince1970: Double(start + 240_000) / 1000)),
        ])
        #expect(windowed.status == 0, "\(windowed.standardError)")
        let inWindow = try JSONValue.parse(windowed.standardOutput)["events"]?.arrayValue ?? []
        #expect(inWindow.compactMap { $0["event_id"]?.stringValue } == Array(ids[1...3]))

        let ndjson = try await backend.tidingsConnected(["events", "query", "--ndjson", "--page-size", "2"])
        #expect(ndjson.status == 0, "\(ndjson.standardError)")
        let lines = ndjson.standardOutput.split(separator: "\n")
        #expect(try lines.map { try JSONValue.parse(String($0))["event_id"]?.stringValue } == ids)

        let csv = try await backend.tidingsConnected([
            "events", "query", "--csv", "--page-size", "2", "--campaign", "spring",
        ])
        #expect(csv.status == 0, "\(csv.standardError)")
        let rows = csv.standardOutput.split(separator: "\r\n").map(String.init)
        // One header although three pages were fetched, then one row per event.
        #expect(rows.count == 6)
        #expect(rows[0].hasPrefix("event_id,type,occurred_at,received_at,installation_id"))
        #expect(rows.dropFirst().map { String($0.prefix(36)) } == ids)
        #expect(rows[1].contains(",delivery,\(start),"))

        let limited = try await backend.tidingsConnected(["events", "query", "--csv", "--limit", "3"])
        #expect(limited.standardOutput.split(separator: "\r\n").count == 4)

        let table = try await backend.tidingsConnected(["events", "query", "--message", "msg_b"])
        let tableLines = table.standardOutput.split(separator: "\n").map(String.init)
        #expect(tableLines.first?.hasPrefix("OCCURRED") == true)
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let occurred = iso.string(from: Date(timeIntervalSince1970: Double(start + 240_000) / 1000))
        #expect(tableLines[1].hasPrefix("\(occurred)  delivery  phone-0       msg_b    spring"))
        #expect(tableLines.last == "1 event(s)")

        let conflicting = try await backend.tidingsConnected(["events", "query", "--csv", "--json"])
        #expect(conflicting.status == 2)
        let badTime = try await backend.tidingsConnected(["events", "query", "--since", "yesterday"])
        #expect(badTime.status == 1)
        #expect(badTime.standardError.contains("answered 400 invalid_parameter: since must be"))
        await backend.stop()
    }

    @Test(.timeLimit(.minutes(1))) func tailPrintsNewEventsOnceAsTheyArrive() async throws {
        let backend = try APIBackend(sending: false)
        try await backend.register("phone-0")
        try await backend.register("phone-1")
        let now = Date().millisecondsSince1970
        let before = Self.events(start: now - 3_600_000)
        try await backend.post(Array(before.prefix(3)))
        // A page of two: the tailer has to move from page to page and re-ask the partial last one.
        async let tail = backend.tidingsConnected([
            "events", "tail", "--since", "2h", "--count", "7", "--interval", "0.1", "--page-size", "2", "--json",
        ])
        try await Task.sleep(for: .milliseconds(800))
        try await backend.post(Array(before.suffix(2)))
        try await Task.sleep(for: .milliseconds(500))
        let after = Self.events(start: now)
        try await backend.post(Array(after.prefix(2)))
        let result = try await tail
        #expect(result.status == 0, "\(result.standardError)")
        let printed = try result.standardOutput.split(separator: "\n").map {
            try JSONValue.parse(String($0))["event_id"]?.stringValue
        }
        let expected = (before + after.prefix(2)).map { $0.eventID.uuidString.lowercased() }
        #expect(printed == expected)
        await backend.stop()
    }

    @Test func tailStartsAtNowByDefaultAndShowsLateUploads() async throws {
        let backend = try APIBackend(sending: false)
        try await backend.register("phone-0")
        try await backend.register("phone-1")
        try await backend.post(Self.events(start: Date().millisecondsSince1970 - 3_600_000))
        async let tail = backend.tidingsConnected(["events", "tail", "--count", "1", "--interval", "0.1"])
        // It occurred half an hour ago but reaches the server only now (an app uploads in batches, a device
        // may have been offline): a tail follows what the server receives, so it is shown. The tail starts at
        // the moment its process first asks, which on a busy machine comes later than any fixed wait, so the
        // late upload comes again (a new event each time, shown alike) until the tail has shown one.
        let uploads = Task {
            while !Task.isCancelled {
                try await Task.sleep(for: .milliseconds(300))
                let fresh = TidingsEvent(
                    type: .open, occurredAt: Date().millisecondsSince1970 - 1_800_000, installationID: "phone-1",
                    messageID: "msg_new", source: .app, appState: .foreground)
                try await backend.post([fresh])
            }
        }
        defer { uploads.cancel() }
        let result = try await tail
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.contains("open  phone-1  msg_new") == true, "\(result.standardOutput)")
        await backend.stop()
    }
}
