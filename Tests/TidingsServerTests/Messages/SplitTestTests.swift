import Foundation
import Testing
import TidingsCampaigns
import TidingsModel
import TidingsServer
import TidingsStore
import TidingsStoreTesting
import TidingsTesting

/// Split tests by person and campaign: one arm per user across devices and across a campaign's messages, a
/// holdout that persists, and conversions per arm with their intervals.
@Suite struct SplitTestTests {
    /// The installations each message was pushed to, by message id (the payload's `tidings.id`).
    static func pushed(_ fixture: MessageFixture) throws -> [String: Set<String>] {
        var byMessage: [String: Set<String>] = [:]
        for push in fixture.provider.pushes {
            let id = try JSONValue.parse(push.payload)["tidings"]?["id"]?.stringValue ?? ""
            byMessage[id, default: []].insert(push.installationID ?? "")
        }
        return byMessage
    }

    /// The title each installation got from `messageID`.
    static func titles(_ fixture: MessageFixture, messageID: String) throws -> [String: String] {
        var titles: [String: String] = [:]
        for push in fixture.provider.pushes {
            let payload = try JSONValue.parse(push.payload)
            guard payload["tidings"]?["id"]?.stringValue == messageID else { continue }
            titles[push.installationID ?? ""] = payload["aps"]?["alert"]?["title"]?.stringValue
        }
        return titles
    }

    static let twoArms: JSONValue = [
        ["id": "a", "weight": 1, "content": ["title": "A"]],
        ["id": "b", "weight": 1, "content": ["title": "B"]],
    ]

    @Test func everyDeviceOfOneUserLandsInTheSameArm() async throws {
        let fixture = try MessageFixture()
        let users = 40
        for user in 0..<users {
            for device in 0..<2 {
                try await fixture.register(
                    "inst-\(user)-\(device)", seed: user * 2 + device + 1, ["user_id": .string("user-\(user)")])
            }
        }
        let reply = try await fixture.send(["target": ["all": true], "variants": Self.twoArms, "control": 0.2])
        let messageID = try #require(reply.json["message_id"]?.stringValue)
        try await fixture.worker().drain()
        let titles = try Self.titles(fixture, messageID: messageID)
        var arms: [String: Int] = [:]
        for user in 0..<users {
            // A device held back has no push: its title is nil, as its twin's must be.
            let first = titles["inst-\(user)-0"]
            #expect(first == titles["inst-\(user)-1"], "user-\(user)")
            arms[first ?? "control", default: 0] += 1
        }
        #expect(arms.count == 3, "\(arms)")
        // Each arm is the one the documented hash gives the user.
        let assignment = VariantAssignment(variants: [("a", 1), ("b", 1)], control: 0.2)
        for user in 0..<users {
            let expected = assignment.variant(splitKey: messageID, subject: .user("user-\(user)"))
            #expect((titles["inst-\(user)-0"]?.lowercased() ?? "control") == expected)
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func theHoldoutPersistsAcrossACampaignsMessagesAndDiffersBetweenCampaigns(_ backend: StoreBackend)
        async throws
    {
        let fixture = try MessageFixture(backend: backend)
        let count = 100
        for index in 0..<count { try await fixture.register("inst-\(index)", seed: index + 1) }
        let everyone = Set((0..<count).map { "inst-\($0)" })
        func send(campaign: String?) async throws -> String {
            var body: [String: JSONValue] = ["target": ["all": true], "variants": Self.twoArms, "control": 0.3]
            if let campaign { body["campaign_id"] = .string(campaign) }
            let reply = try await fixture.send(.object(body))
            #expect(reply.status == 202, "\(reply.json)")
            return try #require(reply.json["message_id"]?.stringValue)
        }
        let first = try await send(campaign: "spring")
        let second = try await send(campaign: "spring")
        let other = try await send(campaign: "autumn")
        let alone = try await send(campaign: nil)
        let alsoAlone = try await send(campaign: nil)
        try await fixture.worker().drain()
        let pushed = try Self.pushed(fixture)
        func holdout(_ id: String) -> Set<String> { everyone.subtracting(pushed[id] ?? []) }
        #expect(!holdout(first).isEmpty)
        #expect(holdout(first) == holdout(second), "the same people are held back from every message of a campaign")
        #expect(holdout(first) != holdout(other), "another campaign holds back other people")
        #expect(holdout(alone) != holdout(alsoAlone), "messages without a campaign are split each on its own")
        #expect(
            try Self.titles(fixture, messageID: first) == Self.titles(fixture, messageID: second),
            "and each person gets the same arm")
        let status = try await fixture.status(first)
        #expect(status.skipped("control") == Int64(holdout(first).count))
    }

    @Test func aConversionGoalIsValidatedWithTheFieldNamed() async throws {
        let fixture = try MessageFixture()
        try await fixture.register("inst-1", seed: 1)
        for (conversion, field) in [
            ("purchase", "conversion"),
            (["within": "24h"], "conversion.event"),
            (["event": "Purchase!", "within": "24h"], "conversion.event"),
            (["event": "purchase"], "conversion.within"),
            (["event": "purchase", "within": "30s"], "conversion.within"),
            (["event": "purchase", "within": "31d"], "conversion.within"),
            (["event": "purchase", "within": "1.5h"], "conversion.within"),
            (["event": "purchase", "within": 59], "conversion.within"),
            (["event": "purchase", "within": "24h", "from": "click"], "conversion.from"),
            (["event": "purchase", "within": "24h", "value": 3], "conversion.value"),
        ] as [(JSONValue, String)] {
            let reply = try await fixture.send([
                "target": ["all": true], "variants": Self.twoArms, "conversion": conversion,
            ])
            #expect(reply.status == 400, "\(conversion)")
            #expect(reply.errorCode == "invalid_field")
            #expect(reply.errorMessage.hasPrefix(field + ":"), "\(conversion): \(reply.errorMessage)")
        }
        for (within, seconds) in [("1m", 60), ("24h", 86400), ("30d", 2_592_000), ("90", 90)] as [(String, Int64)] {
            let value: JSONValue = Int64(within).map(JSONValue.integer) ?? .string(within)
            let reply = try await fixture.send([
                "target": ["all": true], "content": ["title": "x"],
                "conversion": ["event": "purchase", "within": value, "from": "open"],
            ])
            #expect(reply.status == 202, "\(within): \(reply.json)")
            let messageID = try #require(reply.json["message_id"]?.stringValue)
            let message = try await fixture.status(messageID)
            #expect(
                message.json["conversion"]
                    == ["event": "purchase", "within_seconds": .integer(seconds), "from": "open"])
        }
    }

    /// Ten users per arm, chosen by the documented hash; known conversions; intervals worked out by hand.
    @Test(arguments: StoreBackend.allCases)
    func conversionsAreCountedPerArmWithTheControlAndTheirIntervals(_ backend: StoreBackend) async throws {
        let fixture = try MessageFixture(backend: backend)
        let campaign = "spring-sale"
        let assignment = VariantAssignment(variants: [("a", 1), ("b", 1)], control: 0.2)
        var users: [String: [String]] = [:]
        var candidate = 0
        while users.values.map(\.count).min() ?? 0 < 10 || users.count < 3 {
            let user = "user-\(candidate)"
            candidate += 1
            let arm = assignment.variant(splitKey: campaign, subject: .user(user))
            if users[arm, default: []].count < 10 { users[arm, default: []].append(user) }
        }
        var seed = 1
        for arm in users.values {
            for user in arm {
                try await fixture.register("\(user)-phone", seed: seed, ["user_id": .string(user)])
                seed += 1
            }
        }
        // One user of arm a has a second device: still one recipient.
        let twoDevices = try #require(users["a"]?[0])
        try await fixture.register("\(twoDevices)-tablet", seed: seed, ["user_id": .string(twoDevices)])

        let sentAt = fixture.harness.now
        let reply = try await fixture.send([
            "target": ["all": true], "campaign_id": .string(campaign), "variants": Self.twoArms, "control": 0.2,
            "conversion": ["event": "purchase", "within": "24h"],
        ])
        #expect(reply.status == 202, "\(reply.json)")
        let messageID = try #require(reply.json["message_id"]?.stringValue)
        try await fixture.worker().drain()

        let hour: Int64 = 3_600_000
        var events: [TidingsEvent] = []
        func record(_ type: EventType, _ installation: String, user: String?, at: Int64, message: String? = nil) {
            events.append(
                TidingsEvent(
                    type: type, occurredAt: at, installationID: installation, userID: user, messageID: message))
        }
        // Every sent device reports its delivery an hour after the send.
        for arm in ["a", "b"] {
            for user in users[arm] ?? [] {
                record(.delivery, "\(user)-phone", user: user, at: sentAt + hour, message: messageID)
            }
        }
        let a = users["a"] ?? []
        let b = users["b"] ?? []
        let control = users["control"] ?? []
        // a: the two-device user buys on the tablet (no delivery there), two more on their phones; one buys
        // 25 hours after delivery (outside), one bought before the delivery.
        record(.purchase, "\(a[0])-tablet", user: a[0], at: sentAt + 5 * hour)
        record(.purchase, "\(a[1])-phone", user: a[1], at: sentAt + 2 * hour)
        record(.purchase, "\(a[2])-phone", user: a[2], at: sentAt + 24 * hour)
        record(.purchase, "\(a[3])-phone", user: a[3], at: sentAt + 26 * hour)
        record(.purchase, "\(a[4])-phone", user: a[4], at: sentAt + hour / 2)
        // b: six buy within the window, one of them twice.
        for user in b.prefix(6) { record(.purchase, "\(user)-phone", user: user, at: sentAt + 3 * hour) }
        record(.purchase, "\(b[0])-phone", user: b[0], at: sentAt + 4 * hour)
        // Another event type is not a conversion.
        record(.open, "\(b[7])-phone", user: b[7], at: sentAt + 2 * hour, message: messageID)
        // control: its window opens when it would have been sent; one buys within it, one before.
        record(.purchase, "\(control[0])-phone", user: control[0], at: sentAt + 23 * hour)
        record(.purchase, "\(control[1])-phone", user: control[1], at: sentAt - hour)
        _ = try fixture.store.insertEvents(appID: "app_main", events: events, receivedAt: sentAt + 30 * hour)

        let stats = try await fixture.harness.call(
            "GET", "/v1/messages/\(messageID)/stats", key: fixture.harness.serverKey)
        #expect(stats.status == 200)
        let variants = try #require(stats.json["variants"]?.arrayValue)
        #expect(variants.map { $0["variant"] } == ["a", "b", "control"])
        let conversions = variants.map { $0["conversions"] ?? .null }
        #expect(conversions[0]["recipients"] == 10)
        #expect(conversions[0]["converted"] == 3)
        #expect(conversions[0]["rate"] == 0.3)
        #expect(conversions[0]["ci95_low"] == 0.1078)
        #expect(conversions[0]["ci95_high"] == 0.6032)
        #expect(conversions[1]["converted"] == 6)
        #expect(conversions[1]["ci95_low"] == 0.3127)
        #expect(conversions[1]["ci95_high"] == 0.8318)
        #expect(conversions[2]["recipients"] == 10, "the held back count as recipients")
        #expect(conversions[2]["converted"] == 1)
        #expect(conversions[2]["ci95_low"] == 0.0179)
        #expect(conversions[2]["ci95_high"] == 0.4042)
        #expect(conversions[2]["difference"] == nil, "the control is what the others are compared with")
        // b against the control: 0.6 - 0.1, unpooled normal interval.
        #expect(
            conversions[1]["difference"]
                == [
                    "versus": "control", "difference": 0.5, "ci95_low": 0.144, "ci95_high": 0.856, "z": 2.344,
                    "significant": true,
                ])
        #expect(conversions[0]["difference"]?["significant"] == false)
        #expect(stats.json["conversion"]?["event"] == "purchase")
        #expect(stats.json["conversion"]?["recipients"] == 20, "the sent arms together")
        #expect(stats.json["conversion"]?["converted"] == 9)
        let message = try await fixture.status(messageID)
        #expect(message.json["funnel"]?["variants"] == stats.json["variants"], "the message page shows the same")
    }

    /// A window that opens at the open: only recipients who opened can convert, from their first open (a
    /// button that opened the app counts).
    @Test(arguments: StoreBackend.allCases)
    func aWindowFromTheOpenCountsOnlyThoseWhoOpened(_ backend: StoreBackend) async throws {
        let fixture = try MessageFixture(backend: backend)
        for index in 0..<4 { try await fixture.register("inst-\(index)", seed: index + 1) }
        let sentAt = fixture.harness.now
        let reply = try await fixture.send([
            "target": ["all": true], "content": ["title": "Sale"],
            "conversion": ["event": "purchase", "within": "1h", "from": "open"],
        ])
        let messageID = try #require(reply.json["message_id"]?.stringValue)
        try await fixture.worker().drain()
        let minute: Int64 = 60_000
        func event(_ type: EventType, _ index: Int, at minutes: Int64, opensApp: Bool? = nil) -> TidingsEvent {
            var event = TidingsEvent(
                type: type, occurredAt: sentAt + minutes * minute, installationID: "inst-\(index)",
                messageID: type == .purchase ? nil : messageID)
            if type == .action { event.actionID = "buy" }
            event.opensApp = opensApp
            return event
        }
        _ = try fixture.store.insertEvents(
            appID: "app_main",
            events: [
                // Opens at 60, buys at 90: converted.
                event(.open, 0, at: 60), event(.purchase, 0, at: 90),
                // Never opens: its purchase does not count.
                event(.delivery, 1, at: 5), event(.purchase, 1, at: 30),
                // Opens the app through a button at 120, buys at 150: converted.
                event(.action, 2, at: 120, opensApp: true), event(.purchase, 2, at: 150),
                // Opens at 60, buys at 180: outside the hour.
                event(.open, 3, at: 60), event(.purchase, 3, at: 180),
            ], receivedAt: sentAt + 200 * minute)
        let stats = try await fixture.harness.call(
            "GET", "/v1/messages/\(messageID)/stats", key: fixture.harness.serverKey)
        let conversion = try #require(stats.json["conversion"])
        #expect(conversion["from"] == "open")
        #expect(conversion["within_seconds"] == 3600)
        #expect(conversion["recipients"] == 4)
        #expect(conversion["converted"] == 2)
        #expect(conversion["rate"] == 0.5)
        #expect(stats.json["variants"] == nil)
    }
}

extension EventType {
    /// A conversion the app's backend records; not a type the SDK sends.
    fileprivate static let purchase = EventType("purchase")
}
