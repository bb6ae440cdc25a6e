import Foundation
import Testing
import TidingsCampaigns
import TidingsModel
import TidingsPush
import TidingsServer
import TidingsStore
import TidingsStoreTesting
import TidingsTesting

/// Campaigns through the API on a manual clock: background resolution, scheduling, localized content and
/// variants, sent by a real fan-out worker to a recording provider.
@Suite struct CampaignTests {
    /// Stores `count` installations directly (faster than the API for large audiences).
    static func seed(_ fixture: MessageFixture, count: Int, from start: Int = 0) throws {
        for index in start..<(start + count) {
            var update = InstallationUpdate()
            update.apnsToken = .set(String(format: "%064x", index + 1))
            update.consentNotifications = .set(true)
            update.timezone = .set("Asia/Tokyo")
            _ = try fixture.store.upsertInstallation(
                appID: "app_main", installationID: String(format: "bulk-%06d", index), update: update,
                now: fixture.harness.now)
        }
    }

    func resolver(_ fixture: MessageFixture, chunkSize: Int = 1000) -> CampaignResolver {
        var configuration = CampaignResolver.Configuration()
        configuration.chunkSize = chunkSize
        return CampaignResolver(store: fixture.store, clock: fixture.clock, configuration: configuration)
    }

    @Test(arguments: StoreBackend.allCases)
    func aLargeAudienceIsAnsweredAfterOneChunkAndResolvedInTheBackground(_ backend: StoreBackend) async throws {
        let fixture = try MessageFixture(backend: backend)
        try Self.seed(fixture, count: 2500)
        let reply = try await fixture.send(MessageFixture.alert(["all": true]))
        #expect(reply.status == 202)
        #expect(reply.json["state"] == "resolving")
        #expect(reply.json["targets"] == 1000)
        let messageID = try #require(reply.json["message_id"]?.stringValue)

        // Sending starts before resolution ends.
        try await fixture.worker().drain()
        #expect(fixture.provider.pushes.count == 1000)
        #expect(try await fixture.status(messageID).json["state"] == "resolving")

        let chunks = try await resolver(fixture).drain()
        #expect(chunks == 2)
        #expect(try await fixture.status(messageID).count("targets") == 2500)
        try await fixture.worker().drain()
        let status = try await fixture.status(messageID)
        #expect(status.json["state"] == "done")
        #expect(status.count("sent") == 2500)
        #expect(Set(fixture.provider.pushes.compactMap(\.installationID)).count == 2500)
    }

    @Test func resolutionResumesFromItsCursorWhenTheLeaseOfADeadResolverEnds() async throws {
        let fixture = try MessageFixture()
        try Self.seed(fixture, count: 2500)
        let messageID = try #require(
            try await fixture.send(MessageFixture.alert(["all": true])).json["message_id"]?.stringValue)
        // A resolver claims it, writes nothing and dies: nobody else may take it until its lease ends.
        let now = fixture.harness.now
        let dead = try #require(try fixture.store.claimResolution(resolver: "dead", now: now, leaseUntil: now + 60_000))
        #expect(dead.cursor == "bulk-000999")
        #expect(try await resolver(fixture).runOnce() == nil)
        fixture.clock.advance(by: .seconds(61))
        // 1500 left: three full chunks, then an empty one that finds the end.
        #expect(try await resolver(fixture, chunkSize: 500).runOnce() == 4)
        #expect(try await fixture.status(messageID).count("targets") == 2500)
        // The dead resolver's late write is refused.
        #expect(
            try !fixture.store.appendDeliveries(
                messageID: messageID, resolver: "dead", deliveries: [], cursor: nil, finished: true, leaseUntil: 0,
                now: now))
    }

    @Test func cancellingWhileResolvingStopsResolutionAndSending() async throws {
        let fixture = try MessageFixture()
        try Self.seed(fixture, count: 1500)
        let messageID = try #require(
            try await fixture.send(MessageFixture.alert(["all": true])).json["message_id"]?.stringValue)
        let cancelled = try await fixture.harness.call(
            "DELETE", "/v1/messages/\(messageID)", key: fixture.harness.serverKey)
        #expect(cancelled.json["state"] == "cancelled")
        #expect(try await resolver(fixture).runOnce() == nil)
        try await fixture.worker().drain()
        #expect(fixture.provider.pushes.isEmpty)
        let status = try await fixture.status(messageID)
        #expect(status.count("targets") == 1000)
        #expect(status.count("cancelled") == 1000)
    }

    @Test func aScheduledMessageWaitsForItsTimeAndCanBeCancelled() async throws {
        let fixture = try MessageFixture()
        for index in 1...3 { try await fixture.register("inst-\(index)", seed: index) }
        let sendAt = fixture.harness.now / 1000 + 3600
        let reply = try await fixture.send(MessageFixture.alert(["all": true], ["send_at": .integer(sendAt)]))
        #expect(reply.status == 202)
        #expect(reply.json["state"] == "scheduled")
        #expect(reply.json["resolve_at"] == .integer(sendAt * 1000))
        let messageID = try #require(reply.json["message_id"]?.stringValue)
        let listed = try await fixture.harness.call(
            "GET", "/v1/messages", key: fixture.harness.serverKey, query: [("state", "scheduled")])
        #expect(listed.json["messages"]?[0]?["message_id"] == .string(messageID))
        #expect(listed.json["messages"]?[0]?["schedule"]?["send_at"] == .integer(sendAt * 1000))

        // A fresh resolver (a restarted server) finds nothing due until the time comes.
        #expect(try await resolver(fixture).runOnce() == nil)
        fixture.clock.advance(by: .seconds(3599))
        #expect(try await resolver(fixture).runOnce() == nil)
        fixture.clock.advance(by: .seconds(1))
        #expect(try await resolver(fixture).runOnce() == 1)
        try await fixture.worker().drain()
        #expect(fixture.provider.pushes.count == 3)

        let later = try await fixture.send(MessageFixture.alert(["all": true], ["send_at": .integer(sendAt + 7200)]))
        let laterID = try #require(later.json["message_id"]?.stringValue)
        let cancelled = try await fixture.harness.call(
            "DELETE", "/v1/messages/\(laterID)", key: fixture.harness.serverKey)
        #expect(cancelled.json["state"] == "cancelled")
        fixture.clock.advance(by: .seconds(7200))
        #expect(try await resolver(fixture).runOnce() == nil)
        try await fixture.worker().drain()
        #expect(fixture.provider.pushes.count == 3)
    }

    @Test func impossibleRFC3339TimesAreRefusedWithTheFieldNamedNotRolledOver() async throws {
        let fixture = try MessageFixture()
        try await fixture.register("inst-1", seed: 1)
        let soon = RFC3339.components(milliseconds: fixture.harness.now + 2 * 86_400_000)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let day = "\(soon.year)-\(two(soon.month))-\(two(soon.day))"
        let impossible = [
            "\(day)T09:00:00+25:00", "\(day)T09:00:00+09:60", "\(day)T09:00:00-24:00", "\(soon.year)-02-30T09:00:00Z",
            "\(soon.year)-\(two(soon.month))-32T09:00:00Z", "\(day)T24:00:00Z", "\(day)T09:60:00Z",
            "\(day)T09:00:61Z", "\(day)T09:00:00", "\(day)T09:00Z", "\(day) 09:00:00+0900",
        ]
        for text in impossible {
            let reply = try await fixture.send(MessageFixture.alert(["all": true], ["send_at": .string(text)]))
            #expect(reply.status == 400, "\(text)")
            #expect(
                reply.errorMessage.hasPrefix("send_at: must be unix seconds or an RFC 3339"),
                "\(text): \(reply.errorMessage)")
        }
        #expect(fixture.provider.pushes.isEmpty)
        // The same day and times written correctly are scheduled.
        for text in ["\(day)T09:00:00+14:00", "\(day)T09:00:00.250-12:00", "\(day)T09:00:00+05:45"] {
            let reply = try await fixture.send(MessageFixture.alert(["all": true], ["send_at": .string(text)]))
            #expect(reply.status == 202, "\(text): \(reply.errorMessage)")
        }
    }

    @Test func pastTimesAreRefusedUnlessAskedToSendNow() async throws {
        let fixture = try MessageFixture()
        try await fixture.register("inst-1", seed: 1)
        let past = fixture.harness.now / 1000 - 60
        let refused = try await fixture.send(MessageFixture.alert(["all": true], ["send_at": .integer(past)]))
        #expect(refused.status == 400)
        #expect(refused.errorCode == "time_in_past")
        let sent = try await fixture.send(
            MessageFixture.alert(["all": true], ["send_at": .integer(past), "if_past": "send_now"]))
        #expect(sent.status == 202)
        #expect(sent.json["state"] == "sending")
        let localPast = try await fixture.send(MessageFixture.alert(["all": true], ["local_time": "2020-01-01T09:00"]))
        #expect(localPast.errorCode == "time_in_past")
        for (extra, field) in [
            (["local_time": "2027-02-30T09:00"], "local_time"), (["local_time": "tomorrow"], "local_time"),
            (["send_at": "2027-01-01T09:00:00Z", "local_time": "2027-01-01T09:00"], "send_at"),
            (["fallback_time_zone": "Asia/Tokyo"], "fallback_time_zone"),
            (["local_time": "2027-01-01T09:00", "fallback_time_zone": "Mars/Olympus"], "fallback_time_zone"),
            (["if_past": "send_now"], "if_past"), (["send_at": .integer(past + 400 * 86400)], "send_at"),
        ] as [([String: JSONValue], String)] {
            let reply = try await fixture.send(MessageFixture.alert(["all": true], extra))
            #expect(reply.status == 400, "\(extra)")
            #expect(reply.errorMessage.hasPrefix(field), "\(extra): \(reply.errorMessage)")
        }
    }

    /// Tokyo (UTC+9), Berlin (UTC+1 in December) and New York (UTC−5) each get it at 09:00 local.
    @Test func aLocalTimeCampaignReachesEachZoneAtNineLocal() async throws {
        let fixture = try MessageFixture()
        // 2027-01-14T12:00Z: 09:00 on the 15th has not yet come anywhere.
        fixture.clock.advance(
            by: .seconds(
                Date(timeIntervalSince1970: 1_800_000_000).distance(
                    to: ISO8601DateFormatter().date(from: "2027-01-14T12:00:00Z")!)))
        try await fixture.register("tokyo", seed: 1, ["timezone": "Asia/Tokyo"])
        try await fixture.register("berlin", seed: 2, ["timezone": "Europe/Berlin"])
        try await fixture.register("new-york", seed: 3, ["timezone": "America/New_York"])
        try await fixture.register("nowhere", seed: 4, ["timezone": .null])
        let reply = try await fixture.send(
            MessageFixture.alert(
                ["all": true], ["local_time": "2027-01-15T09:00", "fallback_time_zone": "Europe/Berlin"]))
        #expect(reply.status == 202)
        // Resolution waits until just before 09:00 comes anywhere (UTC+14).
        #expect(reply.json["state"] == "scheduled")
        let worker = fixture.worker()
        var sentAt: [String: Date] = [:]
        for _ in 0..<(30 * 4) {
            _ = try await resolver(fixture).drain()
            try await worker.drain()
            for push in fixture.provider.pushes where sentAt[push.installationID ?? ""] == nil {
                sentAt[push.installationID ?? ""] = fixture.clock.now
            }
            fixture.clock.advance(by: .seconds(15 * 60))
        }
        let formatter = ISO8601DateFormatter()
        #expect(sentAt["tokyo"].map(formatter.string) == "2027-01-15T00:00:00Z")
        #expect(sentAt["berlin"].map(formatter.string) == "2027-01-15T08:00:00Z")
        #expect(sentAt["nowhere"].map(formatter.string) == "2027-01-15T08:00:00Z")
        #expect(sentAt["new-york"].map(formatter.string) == "2027-01-15T14:00:00Z")
        #expect(fixture.provider.pushes.count == 4)
    }

    @Test func zonesWhereTheLocalTimeHasPassedAreSkippedUnlessAsked() async throws {
        let fixture = try MessageFixture()
        // 2027-01-15T03:00Z: 09:00 has passed in Tokyo (12:00) but not in Berlin (04:00).
        fixture.clock.advance(
            by: .seconds(
                Date(timeIntervalSince1970: 1_800_000_000).distance(
                    to: ISO8601DateFormatter().date(from: "2027-01-15T03:00:00Z")!)))
        try await fixture.register("tokyo", seed: 1, ["timezone": "Asia/Tokyo"])
        try await fixture.register("berlin", seed: 2, ["timezone": "Europe/Berlin"])
        try await fixture.register("nowhere", seed: 3, ["timezone": .null])
        let skipped = try #require(
            try await fixture.send(MessageFixture.alert(["all": true], ["local_time": "2027-01-15T09:00"]))
                .json["message_id"]?.stringValue)
        var status = try await fixture.status(skipped)
        #expect(status.skipped("past_local_time") == 1)
        #expect(status.skipped("unknown_time_zone") == 1)
        #expect(status.count("queued") == 1)
        let sendNow = try #require(
            try await fixture.send(
                MessageFixture.alert(["all": true], ["local_time": "2027-01-15T09:00", "if_past": "send_now"])
            ).json["message_id"]?.stringValue)
        try await fixture.worker().drain()
        status = try await fixture.status(sendNow)
        #expect(status.count("sent") == 1)
        #expect(fixture.provider.pushes.compactMap(\.installationID) == ["tokyo"])
    }

    @Test func eachInstallationGetsTheBestMatchingLanguage() async throws {
        let fixture = try MessageFixture()
        try await fixture.register("ja", seed: 1, ["language": "ja-JP"])
        try await fixture.register("en-gb", seed: 2, ["language": "en-GB"])
        try await fixture.register("en-us", seed: 3, ["language": "en-US"])
        try await fixture.register("de", seed: 4, ["language": "de"])
        try await fixture.register("unknown", seed: 5)
        let reply = try await fixture.send(
            [
                "target": ["all": true],
                "content": [
                    "default": ["title": "Hello"], "ja": ["title": "こんにちは"], "en-GB": ["title": "Hiya"],
                    "en": ["title": "Hi"],
                ],
            ])
        #expect(reply.status == 202)
        let messageID = try #require(reply.json["message_id"]?.stringValue)
        try await fixture.worker().drain()
        var titles: [String: String] = [:]
        for push in fixture.provider.pushes {
            let payload = try JSONValue.parse(push.payload)
            titles[push.installationID ?? ""] = payload["aps"]?["alert"]?["title"]?.stringValue
        }
        #expect(titles == ["ja": "こんにちは", "en-gb": "Hiya", "en-us": "Hi", "de": "Hello", "unknown": "Hello"])
        let stats = try await fixture.harness.call(
            "GET", "/v1/messages/\(messageID)/stats", key: fixture.harness.serverKey)
        let languages = stats.json["languages"]?.arrayValue?.compactMap { $0["language"]?.stringValue }
        #expect(languages == ["default", "en", "en-GB", "ja"])
        #expect(stats.json["languages"]?[0]?["sent"] == 2)
    }

    @Test func localizedContentErrorsNameTheLanguage() async throws {
        let fixture = try MessageFixture()
        try await fixture.register("inst-1", seed: 1)
        for (content, field) in [
            (["default": ["title": "x"], "ja_JP": ["title": "y"]], "content.ja_JP"),
            (["default": ["title": "x"], "ja": "y"], "content.ja"),
            (["default": ["title": "x"], "ja": ["titel": "y"]], "content.ja.titel"),
            (["default": ["title": "x"], "ja": ["title": "y"], "JA": ["title": "z"]], "content.ja"),
        ] as [(JSONValue, String)] {
            let reply = try await fixture.send(["target": ["all": true], "content": content])
            #expect(reply.status == 400)
            #expect(reply.errorMessage.hasPrefix(field), "\(content): \(reply.errorMessage)")
        }
        let big = String(repeating: "x", count: 5000)
        let tooLarge = try await fixture.send(
            ["target": ["all": true], "content": ["default": ["title": "x"], "ja": ["body": .string(big)]]])
        #expect(tooLarge.errorCode == "payload_too_large")
        #expect(tooLarge.errorMessage.hasPrefix("content.ja"))
    }

    @Test(arguments: StoreBackend.allCases)
    func variantsSplitDeterministicallyHoldBackAControlAndCompareOpenRates(_ backend: StoreBackend) async throws {
        let fixture = try MessageFixture(backend: backend)
        let count = 200
        for index in 0..<count { try await fixture.register("inst-\(index)", seed: index + 1) }
        let body: JSONValue = [
            "target": ["all": true], "control": 0.1,
            "variants": [
                ["id": "a", "weight": 1, "content": ["title": "A"]],
                ["id": "b", "weight": 1, "content": ["default": ["title": "B"], "ja": ["title": "B-ja"]]],
            ],
        ]
        let reply = try await fixture.send(body)
        #expect(reply.status == 202)
        let messageID = try #require(reply.json["message_id"]?.stringValue)
        try await fixture.worker().drain()
        var byVariant: [String: [String]] = [:]
        for push in fixture.provider.pushes {
            let title = try JSONValue.parse(push.payload)["aps"]?["alert"]?["title"]?.stringValue ?? ""
            byVariant[title, default: []].append(push.installationID ?? "")
        }
        let a = byVariant["A"] ?? []
        let b = byVariant["B"] ?? []
        let status = try await fixture.status(messageID)
        let control = Int(status.skipped("control") ?? 0)
        #expect(a.count + b.count + control == count)
        #expect((5...40).contains(control))
        #expect(a.count > 50 && b.count > 50)
        // Assignment is a function of (message without a campaign, installation without a user): the same again.
        let assignment = VariantAssignment(variants: [("a", 1), ("b", 1)], control: 0.1)
        #expect(a.allSatisfy { assignment.variant(splitKey: messageID, subject: .installation($0)) == "a" })
        #expect(b.allSatisfy { assignment.variant(splitKey: messageID, subject: .installation($0)) == "b" })

        // Every delivered device reports delivery; all of A's and half of B's open.
        var events: [JSONValue] = []
        for id in a + b {
            events.append(fixture.harness.event("delivery", installation: id, message: messageID, campaign: nil))
        }
        for id in a + b.prefix(b.count / 2) {
            events.append(fixture.harness.event("open", installation: id, message: messageID, campaign: nil))
        }
        // Each device uploads its own events, as the SDK does.
        let posted = try await fixture.harness.postAsDevices(events)
        #expect(posted.json["receipts"]?.arrayValue?.allSatisfy { $0["status"] == "accepted" } == true)
        let stats = try await fixture.harness.call(
            "GET", "/v1/messages/\(messageID)/stats", key: fixture.harness.serverKey)
        let variants = try #require(stats.json["variants"]?.arrayValue)
        #expect(variants.map { $0["variant"] } == ["a", "b", "control"])
        #expect(variants[0]["sent"] == .integer(Int64(a.count)))
        #expect(variants[0]["opened"] == .integer(Int64(a.count)))
        #expect(variants[1]["opened"] == .integer(Int64(b.count / 2)))
        #expect(variants[2]["skipped"] == .integer(Int64(control)))
        let difference = try #require(variants[1]["open_rate_difference"])
        let expected = ProportionDifference(
            successesA: a.count, trialsA: a.count, successesB: b.count / 2, trialsB: b.count)!
        #expect(difference["difference"] == .double((expected.difference * 10_000).rounded() / 10_000))
        #expect(difference["significant"] == true)
        #expect(variants[0]["open_rate_difference"] == nil)
    }

    @Test func variantsAreValidated() async throws {
        let fixture = try MessageFixture()
        try await fixture.register("inst-1", seed: 1)
        let content: JSONValue = ["title": "x"]
        for (extra, field) in [
            (["variants": []], "variants"),
            (["variants": [["id": "a", "content": content], ["id": "a", "content": content]]], "variants[1].id"),
            (["variants": [["id": "control", "content": content]]], "variants[0].id"),
            (["variants": [["id": "a b", "content": content]]], "variants[0].id"),
            (["variants": [["id": "a", "weight": 0, "content": content]]], "variants[0].weight"),
            (["variants": [["id": "a", "content": content, "colour": "red"]]], "variants[0].colour"),
            (["variants": [["id": "a", "content": content]], "control": 0.9], "control"),
            (["variants": [["id": "a", "content": content]], "content": content], "content"),
            (["control": 0.1, "content": content], "control"),
        ] as [([String: JSONValue], String)] {
            var body: [String: JSONValue] = ["target": ["all": true]]
            body.merge(extra) { _, new in new }
            let reply = try await fixture.send(.object(body))
            #expect(reply.status == 400, "\(extra)")
            #expect(reply.errorMessage.hasPrefix(field), "\(extra): \(reply.errorMessage)")
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func listingPagesNewestFirstAndFiltersByState(_ backend: StoreBackend) async throws {
        let fixture = try MessageFixture(backend: backend)
        try await fixture.register("inst-1", seed: 1)
        var ids: [String] = []
        for _ in 0..<3 {
            ids.append(
                try #require(
                    try await fixture.send(MessageFixture.alert(["all": true])).json["message_id"]?.stringValue))
            fixture.clock.advance(by: .seconds(1))
        }
        let first = try await fixture.harness.call(
            "GET", "/v1/messages", key: fixture.harness.serverKey, query: [("limit", "2")])
        #expect(first.json["messages"]?.arrayValue?.map { $0["message_id"] } == [.string(ids[2]), .string(ids[1])])
        let cursor = try #require(first.json["next_cursor"]?.stringValue)
        let second = try await fixture.harness.call(
            "GET", "/v1/messages", key: fixture.harness.serverKey, query: [("limit", "2"), ("cursor", cursor)])
        #expect(second.json["messages"]?.arrayValue?.map { $0["message_id"] } == [.string(ids[0])])
        #expect(second.json["next_cursor"] == .null)
        let done = try await fixture.harness.call(
            "GET", "/v1/messages", key: fixture.harness.serverKey, query: [("state", "done")])
        #expect(done.json["messages"]?.arrayValue?.isEmpty == true)
        let bad = try await fixture.harness.call(
            "GET", "/v1/messages", key: fixture.harness.serverKey, query: [("state", "later")])
        #expect(bad.status == 400)
        let badCursor = try await fixture.harness.call(
            "GET", "/v1/messages", key: fixture.harness.serverKey, query: [("cursor", "xyz")])
        #expect(badCursor.errorCode == "invalid_cursor")
        let other = try await fixture.harness.call("GET", "/v1/messages", key: fixture.harness.otherServerKey)
        #expect(other.json["messages"]?.arrayValue?.isEmpty == true)
        let unauthorized = try await fixture.harness.call("GET", "/v1/messages", key: fixture.harness.appKey)
        #expect(unauthorized.status == 403 || unauthorized.status == 401)
    }
}
