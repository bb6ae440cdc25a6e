import Foundation
import Testing
import TidingsMetrics
import TidingsModel
import TidingsServer
import TidingsTesting

@Suite struct MessagesAPITests {
    @Test func withoutAProviderAnswers503() async throws {
        let harness = try APIHarness()
        let reply = try await harness.call(
            "POST", "/v1/messages", key: harness.serverKey, json: MessageFixture.alert(["all": true]))
        #expect(reply.status == 503)
        #expect(reply.errorCode == "no_provider")
        #expect(reply.errorMessage.contains("push provider"))
    }

    @Test func needsAServerKey() async throws {
        let fixture = try MessageFixture()
        let reply = try await fixture.harness.call(
            "POST", "/v1/messages", key: fixture.harness.appKey, json: MessageFixture.alert(["all": true]))
        #expect(reply.status == 403)
        let status = try await fixture.harness.call("GET", "/v1/messages/msg_x", key: fixture.harness.appKey)
        #expect(status.status == 403)
    }

    static let invalidBodies: [(JSONValue, String, String)] = [
        (["content": ["body": "b"]], "invalid_field", "target"),
        (["target": ["everyone": true], "content": ["body": "b"]], "invalid_field", "target"),
        (["target": ["all": true, "tags": "a"], "content": ["body": "b"]], "invalid_field", "target"),
        (["target": ["installation_ids": []], "content": ["body": "b"]], "invalid_field", "target.installation_ids"),
        (["target": ["tags": "vip AND"], "content": ["body": "b"]], "invalid_tag_expression", "position 7"),
        (["target": ["all": true]], "invalid_field", "content"),
        (["target": ["all": true], "content": ["body": "b"], "kind": "loud"], "invalid_field", "kind"),
        (["target": ["all": true], "content": ["body": "b"], "priority": 7], "invalid_field", "priority"),
        (["target": ["all": true], "content": ["body": "b"], "ttl": -1], "invalid_field", "ttl"),
        (
            ["target": ["all": true], "content": ["body": "b"], "ttl": 60, "expiration": 1_800_000_600],
            "invalid_field", "ttl"
        ),
        (["target": ["all": true], "content": ["body": "b"], "expiration": 1_000], "invalid_field", "expiration"),
        (
            [
                "target": ["all": true], "content": ["body": "b"],
                "collapse_id": .string(String(repeating: "c", count: 65)),
            ],
            "invalid_field", "65 bytes"
        ),
        (
            ["target": ["all": true], "content": ["body": "b"], "collapse_id": "sale\r\napns-topic: other"],
            "invalid_field", "control characters"
        ),
        (
            ["target": ["all": true], "content": ["body": "b"], "collapse_id": "sale\u{0}"], "invalid_field",
            "collapse_id"
        ),
        (
            ["target": ["all": true], "content": ["body": "b"], "campaign_id": "has space"], "invalid_field",
            "campaign_id"
        ),
        (
            ["target": ["all": true], "content": ["body": "b"], "environment": "staging"], "invalid_field",
            "environment"
        ),
        (["target": ["all": true], "content": ["body": "b"], "message_type": "spam"], "invalid_field", "message_type"),
        (["target": ["all": true], "content": ["body": "b"], "color": "red"], "invalid_field", "color"),
        (["target": ["all": true], "content": ["body": 1]], "invalid_field", "content.body"),
    ]

    @Test(arguments: invalidBodies)
    func refusesInvalidBodiesNamingTheField(body: JSONValue, code: String, mention: String) async throws {
        let fixture = try MessageFixture()
        try await fixture.register("inst-1", seed: 1)
        let reply = try await fixture.send(body)
        #expect(reply.status == 400)
        #expect(reply.errorCode == code)
        #expect(reply.errorMessage.contains(mention), "\(reply.errorMessage)")
    }

    @Test func refusesOversizedPayloadsBeforeQueueing() async throws {
        let fixture = try MessageFixture()
        try await fixture.register("inst-1", seed: 1)
        let reply = try await fixture.send(
            ["target": ["all": true], "content": ["body": .string(String(repeating: "x", count: 5000))]])
        #expect(reply.status == 400)
        #expect(reply.errorCode == "payload_too_large")
        #expect(reply.errorMessage.contains("the limit is 4096 bytes"))
        #expect(
            try fixture.store.claimDeliveries(worker: "w", limit: 10, now: fixture.harness.now, leaseUntil: 1)
                .isEmpty)
    }

    @Test func resolvesEveryTargetKind() async throws {
        let fixture = try MessageFixture()
        try await fixture.register("inst-1", seed: 1, ["user_id": "alice"])
        try await fixture.register("inst-2", seed: 2, ["user_id": "alice"])
        try await fixture.register("inst-3", seed: 3, ["user_id": "bob"])
        try await fixture.register("inst-4", seed: 4)
        let serverKey = fixture.harness.serverKey
        _ = try await fixture.harness.call(
            "PUT", "/v1/users/alice/tags", key: serverKey, json: ["tags": ["vip", "ios"]])
        _ = try await fixture.harness.call(
            "PUT", "/v1/users/bob/tags", key: serverKey, json: ["tags": ["vip", "churned"]])

        func targets(_ target: JSONValue) async throws -> (Int64?, Int64?) {
            let reply = try await fixture.send(MessageFixture.alert(target))
            #expect(reply.status == 202, "\(reply.json)")
            guard case .integer(let targets)? = reply.json["targets"], case .integer(let queued)? = reply.json["queued"]
            else { return (nil, nil) }
            return (targets, queued)
        }
        #expect(try await targets(["all": true]) == (4, 4))
        #expect(try await targets(["user_ids": ["alice", "nobody"]]) == (2, 2))
        #expect(try await targets(["installation_ids": ["inst-3", "inst-3", "ghost"]]) == (2, 1))
        // alice's two installations (vip AND ios) and inst-4 (no user, so NOT churned); not bob.
        #expect(try await targets(["tags": "(vip AND ios) OR NOT churned"]) == (3, 3))
        #expect(try await targets(["tags": "vip AND NOT ios"]) == (1, 1))
    }

    @Test func countsSkippedTargetsByReason() async throws {
        let fixture = try MessageFixture()
        // The harness starts at 2027-01-15 08:00 UTC; 12:00 UTC is 21:00 in Tokyo (night), 12:00 in London.
        fixture.clock.advance(by: .seconds(4 * 3600))
        try await fixture.register("no-consent", seed: 1, ["consents": ["notifications": false]])
        try await fixture.register("no-ads", seed: 2, ["consents": ["notifications": true, "ads": false]])
        try await fixture.register("tokyo", seed: 3, ["consents": ["notifications": true, "ads": true]])
        try await fixture.register(
            "tokyo-night", seed: 4, ["consents": ["notifications": true, "ads": true, "night_ads": true]])
        try await fixture.register(
            "london", seed: 5, ["consents": ["notifications": true, "ads": true], "timezone": "Europe/London"])
        try await fixture.register(
            "sandbox", seed: 6,
            ["consents": ["notifications": true, "ads": true, "night_ads": true], "environment": "sandbox"])
        try await fixture.register(
            "tokenless", seed: 7, ["consents": ["notifications": true, "ads": true, "night_ads": true]])
        _ = try await fixture.harness.call(
            "DELETE", "/v1/installations/tokenless/tokens/apns", key: fixture.harness.appKey)

        let reply = try await fixture.send(
            MessageFixture.alert(["all": true], ["message_type": "ad", "environment": "production"]))
        #expect(reply.status == 202)
        // Only the message's own filter is applied on acceptance; everything else is decided at send time.
        #expect(reply.json["queued"] == .integer(6))
        #expect(reply.json["skipped"] == ["environment": 1])
        let messageID = try #require(reply.json["message_id"]?.stringValue)
        try await fixture.worker().drain()
        #expect(Set(fixture.provider.pushes.map(\.token)) == [APIHarness.token(4), APIHarness.token(5)])
        let status = try await fixture.status(messageID)
        #expect(
            status.json["counts"]?["skipped_by_reason"]
                == ["consent": 1, "ad_consent": 1, "night": 1, "environment": 1, "no_token": 1])
        #expect(status.count("skipped") == 5)
    }

    @Test func wholeFlowFromAcceptanceToDone() async throws {
        let fixture = try MessageFixture()
        for index in 1...30 { try await fixture.register("inst-\(index)", seed: index) }
        let reply = try await fixture.send(
            MessageFixture.alert(["all": true], ["campaign_id": "spring", "collapse_id": "sale", "ttl": 3600]))
        #expect(reply.status == 202)
        let messageID = try #require(reply.json["message_id"]?.stringValue)
        let queuedStatus = try await fixture.status(messageID)
        // A small audience is resolved within the request: the message is already sending.
        #expect(queuedStatus.json["state"] == "sending")
        #expect(queuedStatus.count("queued") == 30)

        let registry = MetricsRegistry()
        try await fixture.worker(chunkSize: 7, inFlight: 4, metrics: registry).drain()

        let status = try await fixture.status(messageID)
        #expect(status.status == 200)
        #expect(status.json["state"] == "done")
        #expect(status.count("sent") == 30)
        #expect(status.count("queued") == 0)
        #expect(status.count("targets") == 30)
        #expect(status.json["funnel"]?["message_id"] == .string(messageID))
        #expect(status.json["funnel"]?["sent"] == 30)
        #expect(status.json["campaign_id"] == "spring")
        let campaign = try await fixture.harness.call(
            "GET", "/v1/campaigns/spring/stats", key: fixture.harness.serverKey)
        #expect(campaign.json["sent"] == 30)
        #expect(campaign.json["failed"] == 0)
        #expect(fixture.provider.maximumInFlight <= 4)
        #expect(registry.counter(name: "tidings_pushes_sent_total", help: "").value == 30)

        let pushes = fixture.provider.pushes
        #expect(pushes.count == 30)
        #expect(Set(pushes.map(\.token)).count == 30)
        let push = try #require(pushes.first)
        #expect(push.topic == "com.example.main")
        #expect(push.pushType == .alert)
        #expect(push.priority == 10)
        #expect(push.collapseID == "sale")
        #expect(push.expiration == fixture.clock.now.addingTimeInterval(3600))
        let payload = try JSONValue.parse(Data(push.payload))
        #expect(payload["tidings"]?["id"] == .string(messageID))
        #expect(payload["tidings"]?["cid"] == "spring")
    }

    @Test func cancelStopsWhatIsNotSent() async throws {
        let fixture = try MessageFixture()
        for index in 1...5 { try await fixture.register("inst-\(index)", seed: index) }
        let reply = try await fixture.send(MessageFixture.alert(["all": true]))
        let messageID = try #require(reply.json["message_id"]?.stringValue)
        let cancelled = try await fixture.harness.call(
            "DELETE", "/v1/messages/\(messageID)", key: fixture.harness.serverKey)
        #expect(cancelled.status == 200)
        #expect(cancelled.json["state"] == "cancelled")
        #expect(cancelled.count("cancelled") == 5)
        #expect(cancelled.count("skipped") == 0)
        #expect(try await fixture.worker().drain() == 0)
        #expect(fixture.provider.pushes.isEmpty)
        // Cancelling again answers the same counts.
        let again = try await fixture.harness.call(
            "DELETE", "/v1/messages/\(messageID)", key: fixture.harness.serverKey)
        #expect(again.status == 200 && again.count("cancelled") == 5)
    }

    @Test func finishedMessagesCannotBeCancelledAndOtherAppsSeeNothing() async throws {
        let fixture = try MessageFixture()
        try await fixture.register("inst-1", seed: 1)
        let reply = try await fixture.send(MessageFixture.alert(["all": true]))
        let messageID = try #require(reply.json["message_id"]?.stringValue)
        try await fixture.worker().drain()
        let cancel = try await fixture.harness.call(
            "DELETE", "/v1/messages/\(messageID)", key: fixture.harness.serverKey)
        #expect(cancel.status == 409)
        #expect(cancel.errorCode == "already_finished")
        let foreign = try await fixture.harness.call(
            "GET", "/v1/messages/\(messageID)", key: fixture.harness.otherServerKey)
        #expect(foreign.status == 404)
        let missing = try await fixture.status("msg_missing")
        #expect(missing.status == 404)
    }

    @Test func aMessageThatGivesNoLifetimeLivesThreeDaysAndTTLZeroIsNowOrNever() async throws {
        let fixture = try MessageFixture()
        try await fixture.register("inst-1", seed: 1)
        _ = try await fixture.send(MessageFixture.alert(["all": true]))
        try await fixture.worker().drain()
        #expect(fixture.provider.pushes.last?.expiration == fixture.clock.now.addingTimeInterval(3 * 24 * 3600))
        _ = try await fixture.send(MessageFixture.alert(["all": true], ["ttl": 0]))
        try await fixture.worker().drain()
        #expect(fixture.provider.pushes.count == 2)
        #expect(fixture.provider.pushes.last?.expiration == nil, "apns-expiration: 0")
    }
}
