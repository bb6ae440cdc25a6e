import Foundation
import Testing
import TidingsHTTP
import TidingsModel
import TidingsServer
import TidingsStoreTesting

@Suite struct EventAPITests {
    func harnessWithInstallation(_ backend: StoreBackend = .sqlite) async throws -> APIHarness {
        let harness = try APIHarness(backend: backend)
        try await harness.register("inst-1")
        try await harness.register("inst-2")
        return harness
    }

    func statuses(_ reply: APIHarness.Reply) -> [String: String] {
        var result: [String: String] = [:]
        for receipt in reply.json["receipts"]?.arrayValue ?? [] {
            result[receipt["event_id"]?.stringValue ?? "?"] = receipt["status"]?.stringValue
        }
        return result
    }

    /// SQLite's batches reply when their group commits, PostgreSQL's are answered on a worker thread: the
    /// same receipts either way.
    @Test(arguments: StoreBackend.allCases)
    func aBatchPostedTwiceIsCountedOnceAndTheSecondReceiptsSayDuplicate(_ backend: StoreBackend) async throws {
        let harness = try await harnessWithInstallation(backend)
        let route = try #require(
            harness.api.router.routes.first { $0.method == "POST" && $0.pattern == "/v1/events" })
        #expect((route.replying != nil) == (backend == .sqlite))
        let ids = (0..<3).map { _ in UUID() }
        let batch: JSONValue = ["events": .array(ids.map { harness.event("delivery", id: $0) })]
        let first = try await harness.postEvents(json: batch)
        #expect(first.status == 200)
        #expect(Set(statuses(first).values) == ["accepted"])
        #expect(statuses(first).keys.sorted() == ids.map { $0.uuidString.lowercased() }.sorted())

        harness.clock.advance(by: .seconds(86_400 * 20))
        let second = try await harness.postEvents(json: batch)
        #expect(Set(statuses(second).values) == ["duplicate"])

        let stored = try await harness.call("GET", "/v1/events", key: harness.serverKey)
        #expect(stored.json["events"]?.arrayValue?.count == 3)
        let stats = try await harness.call("GET", "/v1/campaigns/c1/stats", key: harness.serverKey)
        #expect(stats.json["delivered"] == 3)
        #expect(harness.metrics.counts.withLock { $0 } == .init(accepted: 3, duplicate: 3, rejected: 0, upserts: 2))
    }

    @Test func theSameIDTwiceInOneBatchIsAcceptedOnceThenDuplicate() async throws {
        let harness = try await harnessWithInstallation()
        let id = UUID()
        let reply = try await harness.postEvents(json: [
            "events": [harness.event("open", id: id), harness.event("open", id: id)]
        ])
        let receipts = reply.json["receipts"]?.arrayValue ?? []
        #expect(receipts.map { $0["status"] } == ["accepted", "duplicate"])
    }

    /// The app's own events (a conversion goal's `purchase`) are stored from devices and backends alike, need no
    /// message, and are listed by their type; names outside the rule are refused with it.
    @Test(arguments: StoreBackend.allCases)
    func theAppsOwnEventsAreStoredAndListedByType(_ backend: StoreBackend) async throws {
        let harness = try await harnessWithInstallation(backend)
        let fromDevice = try await harness.postEvents(json: [
            "events": [
                harness.event("purchase", message: nil, campaign: nil, extra: ["value": "order-1"]),
                harness.event("sign_up", message: nil, campaign: nil),
                harness.event("Purchase", message: nil, campaign: nil),
                harness.event("tidings_checkout", message: nil, campaign: nil),
            ]
        ])
        #expect(fromDevice.status == 200)
        let receipts = fromDevice.json["receipts"]?.arrayValue ?? []
        #expect(receipts.map { $0["status"]?.stringValue } == ["accepted", "accepted", "rejected", "rejected"])
        #expect(receipts[2]["error"]?["code"] == "unknown_type")
        #expect(receipts[3]["error"]?["message"]?.stringValue?.contains("not with 'tidings_'") == true)

        let fromBackend = try await harness.postEvents(
            json: ["events": [harness.event("purchase", installation: "inst-2", message: nil, campaign: nil)]],
            key: harness.serverKey)
        #expect(fromBackend.json["receipts"]?.arrayValue?.first?["status"] == "accepted")

        let listed = try await harness.call(
            "GET", "/v1/events", key: harness.serverKey, query: [("type", "purchase")])
        let purchases = listed.json["events"]?.arrayValue ?? []
        #expect(Set(purchases.compactMap { $0["installation_id"]?.stringValue }) == ["inst-1", "inst-2"])
        #expect(purchases.contains { $0["value"] == "order-1" })
        let refused = try await harness.call(
            "GET", "/v1/events", key: harness.serverKey, query: [("type", "tidings_checkout")])
        #expect(refused.status == 400 && refused.json["error"]?["code"] == "invalid_parameter")
    }

    @Test func invalidEventsAreRejectedAloneWithTheirReason() async throws {
        let harness = try await harnessWithInstallation()
        let good = UUID()
        let noMessage = UUID()
        let unknownType = UUID()
        let future = UUID()
        let huge = UUID()
        let stranger = UUID()
        let batch: JSONValue = [
            "events": [
                harness.event("open", id: good),
                harness.event("open", id: noMessage, message: nil),
                harness.event("tidings_teleport", id: unknownType),
                harness.event("open", id: future, extra: ["occurred_at": .integer(harness.now + 3 * 86_400_000)]),
                harness.event(
                    "open", id: huge, extra: ["attributes": ["blob": .string(String(repeating: "x", count: 40_000))]]),
                harness.event("open", installation: "not-registered", id: stranger),
                ["event_id": "not-a-uuid", "type": "open"],
                "not an object",
                ["event_id": 12, "type": "open", "occurred_at": .integer(harness.now), "installation_id": "inst-1"],
            ]
        ]
        let reply = try await harness.postEvents(json: batch)
        #expect(reply.status == 200)
        let receipts = reply.json["receipts"]?.arrayValue ?? []
        #expect(receipts.count == 9)
        func code(_ id: UUID) -> String? {
            receipts.first { $0["event_id"]?.stringValue == id.uuidString.lowercased() }?["error"]?["code"]?.stringValue
        }
        #expect(statuses(reply)[good.uuidString.lowercased()] == "accepted")
        #expect(code(noMessage) == "missing_field")
        #expect(code(unknownType) == "unknown_type")
        #expect(code(future) == "timestamp_out_of_range")
        #expect(code(huge) == "event_too_large")
        // An app key's batch carries only the events of the installation it names.
        #expect(code(stranger) == "installation_mismatch")
        #expect(receipts[6]["event_id"] == "not-a-uuid")
        #expect(receipts[6]["error"]?["code"] == "invalid_value")
        #expect(receipts[7]["event_id"] == .null)
        #expect(receipts[7]["error"]?["code"] == "not_an_object")
        #expect(receipts[8]["error"]?["code"] == "wrong_type")
        #expect(harness.metrics.counts.withLock { $0.rejected } == 8)
        let stored = try await harness.call("GET", "/v1/events", key: harness.serverKey)
        #expect(stored.json["events"]?.arrayValue?.count == 1)
    }

    @Test func moreThan500EventsIs413NamingTheLimit() async throws {
        let harness = try await harnessWithInstallation()
        let batch: JSONValue = ["events": .array((0..<501).map { _ in harness.event("delivery") })]
        let reply = try await harness.postEvents(json: batch)
        #expect(reply.status == 413)
        #expect(reply.errorCode == "too_many_events")
        #expect(reply.errorMessage.contains("limit is 500"))
        #expect(try await harness.call("GET", "/v1/events", key: harness.serverKey).json["events"] == [])
    }

    @Test func aBodyOverOneMebibyteIs413NamingTheLimit() async throws {
        let harness = try await harnessWithInstallation()
        let padding = String(repeating: " ", count: 1024 * 1024)
        let reply = try await harness.postEvents(body: Data("{\"events\": []}\(padding)".utf8))
        #expect(reply.status == 413)
        #expect(reply.errorCode == "payload_too_large")
        #expect(reply.errorMessage.contains("limit is 1048576 bytes"))
    }

    @Test(arguments: ["{\"events\": [", "", "[]"])
    func malformedBatchesAre400InvalidJSON(_ body: String) async throws {
        let harness = try await harnessWithInstallation()
        let reply = try await harness.postEvents(body: Data(body.utf8))
        #expect(reply.status == 400)
        #expect(reply.errorCode == "invalid_json")
    }

    @Test(arguments: [["events": "x"], ["events": nil], ["batch": []]] as [JSONValue])
    func aBatchWithoutAnEventsArrayIs400NamingTheField(_ body: JSONValue) async throws {
        let harness = try await harnessWithInstallation()
        let reply = try await harness.postEvents(json: body)
        #expect(reply.status == 400)
        #expect(reply.errorCode == "invalid_field")
        #expect(reply.errorMessage.hasPrefix("events"))
    }

    @Test func eventsAreQueriedByFiltersAndPagedWithACursor() async throws {
        let harness = try await harnessWithInstallation()
        let start = harness.now
        var events: [JSONValue] = []
        for index in 0..<6 {
            events.append(
                harness.event(
                    index.isMultiple(of: 2) ? "delivery" : "open", message: "m\(index % 2)",
                    extra: ["occurred_at": .integer(start - 6000 + Int64(index) * 1000)]))
        }
        _ = try await harness.postEvents(json: ["events": .array(events)])

        func count(_ query: [(String, String)]) async throws -> Int? {
            try await harness.call("GET", "/v1/events", key: harness.serverKey, query: query).json["events"]?
                .arrayValue?
                .count
        }
        #expect(try await count([("type", "open")]) == 3)
        #expect(try await count([("message_id", "m0")]) == 3)
        #expect(try await count([("campaign_id", "c1")]) == 6)
        #expect(try await count([("campaign_id", "other")]) == 0)
        #expect(try await count([("since", String(start - 4000)), ("until", String(start - 2000))]) == 2)
        let iso = ISO8601DateFormatter().string(from: Date(millisecondsSince1970: start - 3000))
        #expect(try await count([("since", iso)]) == 3)

        var ids: [String] = []
        var cursor: String?
        var pages = 0
        repeat {
            var query = [("limit", "4")]
            if let cursor { query.append(("cursor", cursor)) }
            let page = try await harness.call("GET", "/v1/events", key: harness.serverKey, query: query)
            ids += page.json["events"]?.arrayValue?.compactMap { $0["event_id"]?.stringValue } ?? []
            cursor = page.json["next_cursor"]?.stringValue
            #expect(page.response.headers["X-Next-Cursor"] == cursor)
            pages += 1
        } while cursor != nil
        #expect(pages == 2)
        #expect(ids == events.compactMap { $0["event_id"]?.stringValue })
    }

    @Test(arguments: [
        ("type", "Opened"), ("type", "tidings_opened"), ("message_id", ""),
        ("message_id", String(repeating: "m", count: 4097)),
        ("campaign_id", ""), ("campaign_id", String(repeating: "ü", count: 2049)),
    ])
    func aFilterNoStoredEventCanMatchIs400NamingIt(name: String, value: String) async throws {
        let harness = try APIHarness()
        let reply = try await harness.call("GET", "/v1/events", key: harness.serverKey, query: [(name, value)])
        #expect(reply.status == 400)
        #expect(reply.errorCode == "invalid_parameter")
        #expect(reply.errorMessage.hasPrefix("\(name) "))
    }

    @Test func filtersMatchFreeTextAsStoredAndTheLongestAllowed() async throws {
        let harness = try await harnessWithInstallation()
        let vendorID = "braze campaign/42 ✓"
        let longest = String(repeating: "m", count: 4096)
        let events: [JSONValue] = [
            harness.event("open", message: vendorID), harness.event("open", message: longest),
        ]
        _ = try await harness.postEvents(json: ["events": .array(events)])
        for id in [vendorID, longest] {
            let page = try await harness.call("GET", "/v1/events", key: harness.serverKey, query: [("message_id", id)])
            #expect(page.status == 200)
            #expect(page.json["events"]?.arrayValue?.count == 1)
        }
        let empty = try await harness.call("GET", "/v1/events", key: harness.serverKey, query: [("type", "")])
        #expect(empty.json["events"]?.arrayValue?.count == 2)
    }

    /// The spec's list of event types a query may filter by is the server's own.
    @Test func theSpecListsEveryKnownEventTypeAsAFilter() throws {
        let text = try String(contentsOf: OpenAPISpecTests.specURL, encoding: .utf8)
        let lines = text.split(separator: "\n").drop { $0 != "    EventTypeFilter:" }
        let listed = lines.drop { !$0.hasSuffix("enum:") }.dropFirst()
            .prefix { $0.hasPrefix("            - ") }
            .map { $0.dropFirst(14).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
        #expect(Set(listed) == Set(EventType.known.map(\.rawValue)).union([""]))
        // The app's own types are the pattern beside the list.
        #expect(lines.contains { $0.contains(#"pattern: "^[a-z][a-z0-9_]{0,63}$""#) })
    }

    @Test func storedEventsKeepTheirFieldsAndGainReceivedAt() async throws {
        let harness = try await harnessWithInstallation()
        let event = harness.event(
            "action",
            extra: [
                "dialect": "moengage", "source": "extension", "app_state": "background", "value": "https://e.x/a,b",
                "attributes": ["nested": ["n": 1]], "user_id": "alice",
            ])
        _ = try await harness.postEvents(json: ["events": [event]])
        let page = try await harness.call("GET", "/v1/events", key: harness.serverKey)
        let stored = try #require(page.json["events"]?[0]?.objectValue)
        var expected = event.objectValue!
        expected["received_at"] = .integer(harness.now)
        #expect(stored == expected)
    }

    @Test func exportsAsNDJSONAndCSV() async throws {
        let harness = try await harnessWithInstallation()
        let events: [JSONValue] = [
            harness.event("delivery", extra: ["value": "has,comma \"quoted\""]), harness.event("open"),
        ]
        _ = try await harness.postEvents(json: ["events": .array(events)])

        let ndjson = try await harness.call(
            "GET", "/v1/events", key: harness.serverKey, headers: [("Accept", "application/x-ndjson")])
        #expect(ndjson.response.headers["Content-Type"] == "application/x-ndjson")
        let lines = String(decoding: ndjson.response.body, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 2)
        let firstLine = try JSONDecoder().decode(JSONValue.self, from: Data(lines[0].utf8))
        #expect(firstLine["event_id"] == events[0]["event_id"])

        let csv = try await harness.call("GET", "/v1/events", key: harness.serverKey, headers: [("Accept", "text/csv")])
        #expect(csv.response.headers["Content-Type"]?.hasPrefix("text/csv") == true)
        let text = String(decoding: csv.response.body, as: UTF8.self)
        let rows = text.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(rows.count == 3)
        #expect(rows[0].hasPrefix("event_id,type,occurred_at,received_at,installation_id"))
        #expect(rows[1].contains("\"has,comma \"\"quoted\"\"\""))
    }

    /// (what a device sent, the cell a spreadsheet reads)
    static let formulaCells: [(String, String)] = [
        ("=HYPERLINK(\"https://evil.example\",\"x\")", "\"'=HYPERLINK(\"\"https://evil.example\"\",\"\"x\"\")\""),
        ("+1+cmd|' /C calc'!A0", "'+1+cmd|' /C calc'!A0"), ("-2+3", "'-2+3"), ("@SUM(A1:A9)", "'@SUM(A1:A9)"),
        ("\t=1+1", "'\t=1+1"), ("\r=1+1", "\"'\r=1+1\""), ("plain", "plain"), ("a=b", "a=b"), ("", ""),
    ]

    @Test(arguments: formulaCells)
    func csvExportsNeutraliseCellsASpreadsheetWouldRunAsFormulas(_ sent: String, _ cell: String) async throws {
        let harness = try await harnessWithInstallation()
        let event = harness.event("action", extra: ["value": .string(sent)])
        let posted = try await harness.postEvents(json: ["events": [event]])
        #expect(posted.status < 300, "\(posted.json)")
        let csv = try await harness.call("GET", "/v1/events", key: harness.serverKey, headers: [("Accept", "text/csv")])
        let text = String(decoding: csv.response.body, as: UTF8.self)
        let header = text.components(separatedBy: "\r\n")[0].split(separator: ",").map(String.init)
        let valueIndex = try #require(header.firstIndex(of: "value"))
        let row = String(text.dropFirst(header.joined(separator: ",").count + 2))
        // Every field before `value` is plain here; `value` is the cell under test.
        let fields = row.split(separator: ",", maxSplits: valueIndex, omittingEmptySubsequences: false)
        let rest = String(fields[valueIndex])
        #expect(rest.hasPrefix(cell + ","), "\(rest)")
        // Numbers the server writes are left alone.
        #expect(fields[2] == Substring(String(harness.now)))
    }

    @Test func exportsMayAskForMoreRowsThanJSONPages() async throws {
        let harness = try await harnessWithInstallation()
        let json = try await harness.call("GET", "/v1/events", key: harness.serverKey, query: [("limit", "5000")])
        #expect(json.status == 400)
        #expect(json.errorMessage.contains("1 to 1000"))
        let csv = try await harness.call(
            "GET", "/v1/events", key: harness.serverKey, query: [("limit", "5000")], headers: [("Accept", "text/csv")])
        #expect(csv.status == 200)
        let tooMany = try await harness.call(
            "GET", "/v1/events", key: harness.serverKey, query: [("limit", "100001")],
            headers: [("Accept", "application/x-ndjson")])
        #expect(tooMany.status == 400)
        #expect(tooMany.errorMessage.contains("1 to 100000"))
    }

    @Test(arguments: [("since", "yesterday"), ("until", "2026-13-45"), ("cursor", "bm9wZQ"), ("limit", "-1")])
    func badQueryParametersAre400(_ name: String, _ value: String) async throws {
        let harness = try await harnessWithInstallation()
        let reply = try await harness.call("GET", "/v1/events", key: harness.serverKey, query: [(name, value)])
        #expect(reply.status == 400)
        #expect(reply.errorMessage.contains(name))
    }
}

/// `received_since`: when the server received an event, not when it occurred.
@Suite struct EventReceivedSinceTests {
    @Test func filtersOnReceptionNotOccurrence() async throws {
        let harness = try APIHarness()
        try await harness.register("inst-1")
        let old = harness.event("delivery", installation: "inst-1")
        _ = try await harness.postEvents(json: ["events": [old]])
        harness.clock.advance(by: .seconds(60))
        let cut = harness.clock.now.millisecondsSince1970
        let late = harness.event("open", installation: "inst-1")
        _ = try await harness.postEvents(json: ["events": [late]])

        let page = try await harness.call(
            "GET", "/v1/events", key: harness.serverKey, query: [("received_since", String(cut))])
        #expect(page.status == 200)
        #expect(page.json["events"]?.arrayValue?.map { $0["type"] } == ["open"])
        let bad = try await harness.call(
            "GET", "/v1/events", key: harness.serverKey, query: [("received_since", "yesterday")])
        #expect(bad.status == 400)
    }
}
