import Foundation
import Testing
import TidingsHTTP
import TidingsModel
import TidingsServer
import TidingsStore
import TidingsStoreTesting

/// The read-only routes the console's pages call: lint, audience size, overview, messages, device search and
/// a device's timeline; with a server key here (a session acts the same way).
@Suite struct ConsoleAPITests {
    @Test func lintBuildsTheCanonicalPayloadAndReportsTheLintersFindings() async throws {
        let harness = try APIHarness()
        let reply = try await harness.call(
            "POST", "/v1/lint", key: harness.serverKey,
            json: ["content": ["title": "Sale", "body": "Today only", "buttons": [["id": "buy", "title": "Buy"]]]])
        #expect(reply.status == 200)
        #expect(reply.json["payload"]?["aps"]?["alert"]?["title"] == "Sale")
        #expect(reply.json["report"]?["buttons"]?.arrayValue?.count == 1)
        #expect(reply.json["report"]?["size_limit"] == 4096)
        #expect(reply.json["report"]?["warnings"]?.arrayValue != nil)

        let tooMany = try await harness.call(
            "POST", "/v1/lint", key: harness.serverKey,
            json: [
                "content": ["title": "x", "buttons": .array((0..<5).map { ["id": .string("b\($0)"), "title": "B"] })]
            ])
        #expect(tooMany.status == 400)
        #expect(tooMany.errorMessage.contains("buttons"))
        #expect(try await harness.call("POST", "/v1/lint", key: harness.serverKey, body: Data("{".utf8)).status == 400)
        #expect(try await harness.call("POST", "/v1/lint", key: harness.appKey, json: ["content": [:]]).status == 403)
        #expect(try await harness.call("POST", "/v1/lint", json: ["content": [:]]).status == 401)
    }

    @Test func theAudienceSizeCountsWhatATargetReachesInThisAppOnly() async throws {
        let harness = try APIHarness()
        try await harness.register("i1", ["user_id": "u1"])
        try await harness.register("i2", ["user_id": "u1"])
        try await harness.register("i3", ["user_id": "u2"])
        _ = try await harness.call("POST", "/v1/users/u2/tags", key: harness.serverKey, json: ["tags": ["vip"]])
        _ = try await harness.call(
            "PUT", "/v1/installations/x1", key: harness.otherAppKey, json: ["platform": "ios"])
        func size(_ target: JSONValue) async throws -> Int64? {
            try await harness.call("POST", "/v1/audience", key: harness.serverKey, json: ["target": target])
                .json["installations"]?.integerValue
        }
        #expect(try await size(["all": true]) == 3)
        #expect(try await size(["user_ids": ["u1"]]) == 2)
        #expect(try await size(["tags": "vip"]) == 1)
        #expect(try await size(["tags": "NOT vip"]) == 2)
        #expect(try await size(["installation_ids": ["i1", "nope", "i1"]]) == 1)
        let bad = try await harness.call(
            "POST", "/v1/audience", key: harness.serverKey, json: ["target": ["tags": "vip AND"]])
        #expect(bad.status == 400)
        #expect(
            try await harness.call(
                "POST", "/v1/audience", key: harness.serverKey, json: ["target": ["all": true], "x": 1]
            ).status == 400)
    }

    @Test func theOverviewHasEveryDayOfTheWindowAndRefusesAnotherWindow() async throws {
        let harness = try APIHarness()
        try await harness.register("i1", ["platform": "ios"])
        let reply = try await harness.call("GET", "/v1/stats/overview", key: harness.serverKey, query: [("days", "7")])
        #expect(reply.status == 200)
        #expect(reply.json["installations"]?["total"] == 1)
        #expect(reply.json["installations"]?["by_platform"]?["ios"] == 1)
        let days = try #require(reply.json["days"]?.arrayValue)
        #expect(days.count == 7)
        #expect(days.last?["day"]?.integerValue == harness.now - harness.now % 86_400_000)
        for bad in ["0", "91", "week"] {
            #expect(
                try await harness.call("GET", "/v1/stats/overview", key: harness.serverKey, query: [("days", bad)])
                    .status == 400)
        }
    }

    /// The open rate once passed 100%: opens in the window of messages delivered before it, and repeated
    /// opens, were counted against the deliveries in the window.
    @Test(arguments: StoreBackend.allCases)
    func theOpenRateIsOpensOfTheDeliveriesInTheWindowAndNeverPassesOne(_ backend: StoreBackend) async throws {
        let harness = try APIHarness(backend: backend)
        let now = harness.now
        var events: [TidingsEvent] = []
        func record(_ type: EventType, _ installation: String, _ message: String, at: Int64, opensApp: Bool? = nil) {
            var event = TidingsEvent(type: type, occurredAt: at, installationID: installation, messageID: message)
            if type == .action { event.actionID = "buy" }
            event.opensApp = opensApp
            events.append(event)
        }
        // Delivered 20 days ago, opened today on two devices: outside the window.
        for installation in ["i2", "i3"] {
            record(.delivery, installation, "m-old", at: now - 20 * 86_400_000)
            record(.open, installation, "m-old", at: now)
        }
        // Delivered today to two devices; one opens twice, the other taps a button that does not open the app.
        record(.delivery, "i1", "m1", at: now)
        record(.open, "i1", "m1", at: now)
        record(.open, "i1", "m1", at: now)
        record(.delivery, "i4", "m1", at: now)
        record(.action, "i4", "m1", at: now, opensApp: false)
        // A button that opened the app, for a message with no delivery recorded: no delivery to count it against.
        record(.action, "i5", "m2", at: now, opensApp: true)
        _ = try harness.store.insertEvents(appID: "app_main", events: events, receivedAt: now)

        let reply = try await harness.call("GET", "/v1/stats/overview", key: harness.serverKey, query: [("days", "14")])
        #expect(reply.status == 200)
        let today = try #require(reply.json["days"]?.arrayValue?.last)
        #expect(today["delivered"] == 2)
        #expect(today["opened"] == 1)
        #expect(today["open_rate"] == 0.5)
        #expect(reply.json["totals"]?["delivered"] == 2)
        #expect(reply.json["totals"]?["opened"] == 1)
        #expect(reply.json["totals"]?["open_rate"] == 0.5)
        let first = try #require(reply.json["days"]?.arrayValue?.first)
        #expect(first["open_rate"] == .null, "no delivery that day")
    }

    @Test func devicesAreFoundByIdUserTagAndTokenPrefixWithTokensMasked() async throws {
        let harness = try APIHarness()
        let token = String(repeating: "ab", count: 32)
        try await harness.register("i1", ["user_id": "alice", "apns_token": .string(token)])
        try await harness.register("i2", ["user_id": "bob"])
        _ = try await harness.call("POST", "/v1/users/bob/tags", key: harness.serverKey, json: ["tags": ["vip"]])
        func search(_ q: String) async throws -> [String] {
            let reply = try await harness.call("GET", "/v1/devices/search", key: harness.serverKey, query: [("q", q)])
            return reply.json["installations"]?.arrayValue?.compactMap { $0["installation_id"]?.stringValue } ?? []
        }
        #expect(try await search("i1") == ["i1"])
        #expect(try await search("bob") == ["i2"])
        #expect(try await search("vip") == ["i2"])
        #expect(try await search("abab") == ["i1"])
        #expect(try await search("nothing") == [])
        let found = try await harness.call("GET", "/v1/devices/search", key: harness.serverKey, query: [("q", "alice")])
        let masked = try #require(found.json["installations"]?[0]?["apns_token"]?.stringValue)
        #expect(masked == "ababab…abab")
        #expect(!String(decoding: found.response.body, as: UTF8.self).contains(token))
        #expect(try await harness.call("GET", "/v1/devices/search", key: harness.serverKey).status == 400)
    }

    @Test func aDevicesTimelineHasItsEventsAndTagsAndIs404ForAnother() async throws {
        let harness = try APIHarness()
        try await harness.register("i1", ["user_id": "alice"])
        _ = try await harness.call("POST", "/v1/users/alice/tags", key: harness.serverKey, json: ["tags": ["vip"]])
        let batch: JSONValue = [
            "events": [harness.event("delivery", installation: "i1"), harness.event("open", installation: "i1")]
        ]
        #expect(try await harness.call("POST", "/v1/events", key: harness.serverKey, json: batch).status == 200)
        let reply = try await harness.call("GET", "/v1/installations/i1/timeline", key: harness.serverKey)
        #expect(reply.status == 200)
        #expect(reply.json["tags"] == ["vip"])
        #expect(reply.json["events"]?.arrayValue?.count == 2)
        #expect(reply.json["deliveries"]?.arrayValue?.isEmpty == true)
        #expect(try await harness.call("GET", "/v1/installations/zz/timeline", key: harness.serverKey).status == 404)
        #expect(
            try await harness.call("GET", "/v1/installations/i1/timeline", key: harness.otherServerKey).status == 404)
    }
}
