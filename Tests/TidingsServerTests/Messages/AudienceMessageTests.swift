import Foundation
import Testing
import TidingsCampaigns
import TidingsModel
import TidingsServer
import TidingsStore
import TidingsStoreTesting
import TidingsTesting

/// Messages to audience expressions through the API: accepted with 202 and resolved in chunks to exactly the
/// installations the expression selects; refused with the column of a mistake; counted by
/// `POST /v1/audience/count`.
@Suite struct AudienceMessageTests {
    /// 1200 installations: app versions 2.9.0, 2.10.0 and 2.3.1 in turn, Japanese on even indexes, and every
    /// fifth one belonging to a user tagged `vip`.
    static func seed(_ fixture: MessageFixture) throws -> [String: (version: String, japanese: Bool, vip: Bool)] {
        var facts: [String: (version: String, japanese: Bool, vip: Bool)] = [:]
        let versions = ["2.9.0", "2.10.0", "2.3.1"]
        for index in 0..<1200 {
            let id = String(format: "aud-%05d", index)
            var update = InstallationUpdate()
            update.apnsToken = .set(String(format: "%064x", index + 1))
            update.consentNotifications = .set(true)
            update.timezone = .set("Asia/Tokyo")
            update.appVersion = .set(versions[index % 3])
            update.language = .set(index % 2 == 0 ? "ja-JP" : "en-US")
            let vip = index % 5 == 0
            if vip { update.userID = .set("user-\(index)") }
            _ = try fixture.store.upsertInstallation(
                appID: "app_main", installationID: id, update: update, now: fixture.harness.now)
            if vip {
                _ = try fixture.store.replaceTags(
                    appID: "app_main", userID: "user-\(index)", tags: ["vip"], limits: TagLimits())
            }
            facts[id] = (versions[index % 3], index % 2 == 0, vip)
        }
        return facts
    }

    @Test(arguments: StoreBackend.allCases)
    func theRightInstallationsGetDeliveriesChunkByChunk(_ backend: StoreBackend) async throws {
        let fixture = try MessageFixture(backend: backend)
        let facts = try Self.seed(fixture)
        let expected = Set(facts.filter { $0.value.version == "2.10.0" && ($0.value.japanese || $0.value.vip) }.keys)
        // Scheduled a minute ahead, so the whole audience is left to the background resolver.
        let reply = try await fixture.send([
            "audience": "app_version >= 2.10 and (language = ja or tag:vip) and last_seen > 1h ago",
            "content": ["title": "Hello", "body": "World"], "send_at": .integer(fixture.harness.now / 1000 + 60),
        ])
        #expect(reply.status == 202, "\(reply.json)")
        #expect(reply.json["state"] == "scheduled")
        let messageID = try #require(reply.json["message_id"]?.stringValue)
        fixture.clock.advance(by: .seconds(60))

        var configuration = CampaignResolver.Configuration()
        configuration.chunkSize = 50
        let chunks = try await CampaignResolver(
            store: fixture.store, clock: fixture.clock, configuration: configuration
        )
        .drain()
        #expect(chunks >= 2, "the rest of the audience is resolved a bounded chunk at a time")
        #expect(try await fixture.status(messageID).count("targets") == Int64(expected.count))
        try await fixture.worker().drain()
        #expect(Set(fixture.provider.pushes.compactMap(\.installationID)) == expected)
        #expect(fixture.provider.pushes.count == expected.count, "nobody twice")
    }

    @Test func theTargetFormTakesAnAudienceToo() async throws {
        let fixture = try MessageFixture()
        try await fixture.register("i-ja", seed: 1, ["language": "ja", "app_version": "3.0"])
        try await fixture.register("i-en", seed: 2, ["language": "en", "app_version": "3.0"])
        let reply = try await fixture.send(MessageFixture.alert(["audience": "language = ja"]))
        #expect(reply.status == 202, "\(reply.json)")
        #expect(reply.json["targets"] == 1)
        #expect(try await fixture.send(MessageFixture.alert(["tags": "vip OR NOT vip"])).json["targets"] == 2)
    }

    static let refused: [(JSONValue, String, String)] = [
        (["audience": "tag:vip and", "content": ["body": "b"]], "invalid_audience", "at column 12"),
        (["audience": "langauge = ja", "content": ["body": "b"]], "invalid_audience", "unknown field 'langauge'"),
        (["audience": "app_version >= 2.x", "content": ["body": "b"]], "invalid_audience", "column 16"),
        (["audience": 5, "content": ["body": "b"]], "invalid_field", "audience: must be a string"),
        (
            ["audience": "tag:vip", "target": ["all": true], "content": ["body": "b"]], "invalid_field",
            "give target or audience, not both"
        ),
        (["target": ["audience": "(tag:a"], "content": ["body": "b"]], "invalid_audience", "never closed"),
    ]

    @Test(arguments: refused)
    func badAudiencesAreRefusedWithTheirColumn(body: JSONValue, code: String, mention: String) async throws {
        let fixture = try MessageFixture()
        try await fixture.register("inst-1", seed: 1)
        let reply = try await fixture.send(body)
        #expect(reply.status == 400)
        #expect(reply.errorCode == code)
        #expect(reply.errorMessage.contains(mention), "\(reply.errorMessage)")
    }

    @Test func theCountEndpointCountsAndPointsAtMistakes() async throws {
        let harness = try APIHarness()
        try await harness.register("i1", ["language": "ja-JP", "app_version": "2.10.0", "user_id": "u1"])
        try await harness.register("i2", ["language": "en", "app_version": "2.9.1"])
        try await harness.register("i3", ["app_version": "2.3"])
        _ = try await harness.call("POST", "/v1/users/u1/tags", key: harness.serverKey, json: ["tags": ["vip"]])
        _ = try await harness.call(
            "PUT", "/v1/installations/x1", key: harness.otherAppKey, json: ["platform": "ios", "language": "ja"])
        func count(_ expression: String) async throws -> Int64? {
            let reply = try await harness.call(
                "POST", "/v1/audience/count", key: harness.serverKey, json: ["audience": .string(expression)])
            #expect(reply.status == 200, "\(expression): \(reply.json)")
            return reply.json["count"]?.integerValue
        }
        #expect(try await count("language = ja") == 1)
        #expect(try await count("app_version > 2.9") == 2)
        #expect(try await count("app_version > 2.9 and not tag:vip") == 1)
        #expect(try await count("language is null") == 1)
        #expect(try await count("last_seen > 1h ago") == 3)

        let bad = try await harness.call(
            "POST", "/v1/audience/count", key: harness.serverKey, json: ["audience": "tag:vip or langauge = ja"])
        #expect(bad.status == 400)
        #expect(bad.errorCode == "invalid_audience")
        #expect(bad.json["error"]?["column"] == 12)
        #expect(bad.json["error"]?["reason"] == "unknown_field")
        #expect(bad.errorMessage.contains("the fields are installation_id, user_id, tag, language"))

        for body: JSONValue in [["audience": 1], [:], ["audience": "tag:a", "extra": 1]] {
            let reply = try await harness.call("POST", "/v1/audience/count", key: harness.serverKey, json: body)
            #expect(reply.status == 400, "\(body)")
        }
        #expect(
            try await harness.call("POST", "/v1/audience/count", key: harness.appKey, json: ["audience": "tag:a"])
                .status == 403)
        #expect(try await harness.call("POST", "/v1/audience/count", json: ["audience": "tag:a"]).status == 401)

        // The console's lint takes a message with an audience; its size route takes an audience as well.
        let lint = try await harness.call(
            "POST", "/v1/lint", key: harness.serverKey, json: ["audience": "tag:vip", "content": ["title": "Hi"]])
        #expect(lint.status == 200, "\(lint.json)")
        let size = try await harness.call(
            "POST", "/v1/audience", key: harness.serverKey, json: ["audience": "app_version >= 2.9.1"])
        #expect(size.json["installations"] == 2)
    }
}
