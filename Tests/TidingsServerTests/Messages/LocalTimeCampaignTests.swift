import Foundation
import Testing
import TidingsCampaigns
import TidingsModel
import TidingsPush
import TidingsServer
import TidingsStore
import TidingsStoreTesting
import TidingsTesting

/// The promises of a `local_time` message (docs/campaigns.md, "Local time"): each installation's time to live
/// counts from its own due time, its audience and consent are decided again when that time comes, and the
/// schedule shows what waits in each zone.
@Suite struct LocalTimeCampaignTests {
    static func date(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    static func milliseconds(_ text: String) -> JSONValue { .integer(date(text).millisecondsSince1970) }

    /// Moves the fixture's clock forward to `text` (RFC 3339, UTC).
    static func advance(_ fixture: MessageFixture, to text: String) {
        fixture.clock.advance(by: .seconds(fixture.clock.now.distance(to: date(text))))
    }

    static func resolveAndSend(_ fixture: MessageFixture) async throws {
        _ = try await CampaignResolver(store: fixture.store, clock: fixture.clock).drain()
        try await fixture.worker().drain()
    }

    /// A one-hour 09:00 flash sale: each zone's push expires an hour after 09:00 there, not an hour after 09:00
    /// in the last zone (UTC−12), which in UTC+14 is a day late.
    @Test(arguments: StoreBackend.allCases)
    func eachZonesExpiryCountsFromItsOwnNineOClock(_ backend: StoreBackend) async throws {
        let fixture = try MessageFixture(backend: backend)
        Self.advance(fixture, to: "2027-01-14T12:00:00Z")
        try await fixture.register("kiritimati", seed: 1, ["timezone": "Pacific/Kiritimati"])
        try await fixture.register("kathmandu", seed: 2, ["timezone": "Asia/Kathmandu"])
        try await fixture.register("new-york", seed: 3, ["timezone": "America/New_York"])
        let reply = try await fixture.send(
            MessageFixture.alert(["all": true], ["local_time": "2027-01-15T09:00", "ttl": 3600]))
        #expect(reply.status == 202)
        var sentAt: [String: Date] = [:]
        var expiration: [String: Date] = [:]
        for _ in 0..<(30 * 4) {
            try await Self.resolveAndSend(fixture)
            for push in fixture.provider.pushes where sentAt[push.installationID ?? ""] == nil {
                sentAt[push.installationID ?? ""] = fixture.clock.now
                expiration[push.installationID ?? ""] = push.expiration
            }
            fixture.clock.advance(by: .seconds(15 * 60))
        }
        #expect(sentAt["kiritimati"] == Self.date("2027-01-14T19:00:00Z"))
        #expect(expiration["kiritimati"] == Self.date("2027-01-14T20:00:00Z"))
        #expect(sentAt["kathmandu"] == Self.date("2027-01-15T03:15:00Z"))
        #expect(expiration["kathmandu"] == Self.date("2027-01-15T04:15:00Z"))
        #expect(sentAt["new-york"] == Self.date("2027-01-15T14:00:00Z"))
        #expect(expiration["new-york"] == Self.date("2027-01-15T15:00:00Z"))
    }

    /// The server was down past UTC+14's 10:00: that zone's delivery is recorded as expired, not sent a day late,
    /// while Tokyo's, still within its hour, goes out. The schedule shows both zones as it goes.
    @Test(arguments: StoreBackend.allCases)
    func aZonePastItsOwnTimeToLiveIsExpiredAndTheScheduleShowsEachZone(_ backend: StoreBackend) async throws {
        let fixture = try MessageFixture(backend: backend)
        Self.advance(fixture, to: "2027-01-14T12:00:00Z")
        try await fixture.register("kiritimati", seed: 1, ["timezone": "Pacific/Kiritimati"])
        try await fixture.register("tokyo", seed: 2, ["timezone": "Asia/Tokyo"])
        let messageID = try #require(
            try await fixture.send(
                MessageFixture.alert(["all": true], ["local_time": "2027-01-15T09:00", "ttl": 3600])
            ).json["message_id"]?.stringValue)
        var status = try await fixture.status(messageID)
        #expect(status.json["local_schedule"]?["zones"] == [])
        #expect(status.json["local_schedule"]?["next_due_at"] == .null)

        // Resolved an hour before 09:00 comes in UTC+14.
        Self.advance(fixture, to: "2027-01-14T18:00:00Z")
        try await Self.resolveAndSend(fixture)
        status = try await fixture.status(messageID)
        let schedule = try #require(status.json["local_schedule"])
        #expect(schedule["local_time"] == "2027-01-15T09:00")
        #expect(schedule["next_due_at"] == Self.milliseconds("2027-01-14T19:00:00Z"))
        #expect(schedule["waiting"] == 2)
        let zones = try #require(schedule["zones"]?.arrayValue)
        #expect(zones.count == 2)
        #expect(zones.first?["due_at"] == Self.milliseconds("2027-01-14T19:00:00Z"))
        #expect(zones.first?["utc_offset"] == "+14:00")
        #expect(zones.first?["waiting"] == 1)
        #expect(zones.last?["due_at"] == Self.milliseconds("2027-01-15T00:00:00Z"))
        #expect(zones.last?["utc_offset"] == "+09:00")
        #expect(zones.last?["waiting"] == 1)

        // Down from before 09:00 in Kiritimati until after 10:00 there.
        Self.advance(fixture, to: "2027-01-14T20:30:00Z")
        try await Self.resolveAndSend(fixture)
        #expect(fixture.provider.pushes.isEmpty)
        status = try await fixture.status(messageID)
        #expect(status.skipped("expired") == 1)
        let afterOutage = try #require(status.json["local_schedule"])
        #expect(afterOutage["next_due_at"] == Self.milliseconds("2027-01-15T00:00:00Z"))
        #expect(afterOutage["zones"]?.arrayValue?.first?["skipped"] == 1)
        #expect(afterOutage["zones"]?.arrayValue?.first?["skipped_by_reason"]?["expired"] == 1)
        #expect(afterOutage["zones"]?.arrayValue?.first?["waiting"] == 0)

        Self.advance(fixture, to: "2027-01-15T00:00:00Z")
        try await Self.resolveAndSend(fixture)
        #expect(fixture.provider.pushes.map(\.installationID) == ["tokyo"])
        #expect(fixture.provider.pushes.first?.expiration == Self.date("2027-01-15T01:00:00Z"))
        status = try await fixture.status(messageID)
        #expect(status.json["state"] == "done")
        #expect(status.json["local_schedule"]?["next_due_at"] == .null)
        #expect(status.json["local_schedule"]?["zones"]?.arrayValue?.last?["sent"] == 1)
    }

    /// What is decided at each installation's due time rather than at resolution: leaving the audience,
    /// withdrawing consent and losing the token are honoured and counted; joining after resolution is not (the
    /// audience is read once, before the first zone).
    @Test(arguments: StoreBackend.allCases, ["audience", "tags"])
    func leaversAndWithdrawnConsentAreDecidedAtTheDueTime(_ backend: StoreBackend, _ targetKind: String)
        async throws
    {
        let fixture = try MessageFixture(backend: backend)
        let harness = fixture.harness
        Self.advance(fixture, to: "2027-01-14T12:00:00Z")
        func tag(_ user: String, _ tags: [JSONValue]) async throws {
            let reply = try await harness.call(
                "PUT", "/v1/users/\(user)/tags", key: harness.serverKey, json: ["tags": .array(tags)])
            #expect(reply.status < 300, "\(reply.json)")
        }
        for (seed, id) in ["stays", "leaves", "withdraws", "uninstalls", "joins"].enumerated() {
            try await fixture.register(id, seed: seed + 1, ["user_id": .string("u-\(id)")])
            if id != "joins" { try await tag("u-\(id)", ["vip"]) }
        }
        let target: JSONValue = targetKind == "audience" ? ["audience": "tag:vip"] : ["tags": "vip"]
        let messageID = try #require(
            try await fixture.send(MessageFixture.alert(target, ["local_time": "2027-01-15T09:00"]))
                .json["message_id"]?.stringValue)
        Self.advance(fixture, to: "2027-01-14T18:00:00Z")
        try await Self.resolveAndSend(fixture)
        #expect(try await fixture.status(messageID).count("targets") == 4)

        // Between resolution and 09:00 in Tokyo.
        try await tag("u-leaves", [])
        try await fixture.register(
            "withdraws", seed: 3, ["user_id": "u-withdraws", "consents": ["notifications": false]])
        let removed = try await harness.call(
            "DELETE", "/v1/installations/uninstalls/tokens/apns", key: harness.appKey)
        #expect(removed.status < 300)
        try await tag("u-joins", ["vip"])

        Self.advance(fixture, to: "2027-01-15T00:00:00Z")
        try await Self.resolveAndSend(fixture)
        #expect(fixture.provider.pushes.map(\.installationID) == ["stays"])
        let status = try await fixture.status(messageID)
        #expect(status.json["state"] == "done")
        #expect(status.count("targets") == 4)
        #expect(status.count("sent") == 1)
        #expect(status.skipped("left_audience") == 1)
        #expect(status.skipped("consent") == 1)
        #expect(status.skipped("no_token") == 1)
        #expect(status.json["local_schedule"]?["zones"]?.arrayValue?.first?["skipped"] == 3)
    }

    /// A message with one send time is resolved at that time: its expiry is the message's, unchanged.
    @Test func aSendAtMessageKeepsOneExpiryForAll() async throws {
        let fixture = try MessageFixture()
        try await fixture.register("tokyo", seed: 1, ["timezone": "Asia/Tokyo"])
        try await fixture.register("kiritimati", seed: 2, ["timezone": "Pacific/Kiritimati"])
        let sendAt = fixture.clock.now.addingTimeInterval(3600)
        let messageID = try #require(
            try await fixture.send(
                MessageFixture.alert(
                    ["all": true], ["send_at": .integer(Int64(sendAt.timeIntervalSince1970)), "ttl": 60])
            ).json["message_id"]?.stringValue)
        fixture.clock.advance(by: .seconds(3600))
        try await Self.resolveAndSend(fixture)
        #expect(fixture.provider.pushes.count == 2)
        #expect(fixture.provider.pushes.allSatisfy { $0.expiration == sendAt.addingTimeInterval(60) })
        #expect(try await fixture.status(messageID).json["local_schedule"] == nil)
    }
}
