import Foundation
import Testing
import TidingsModel
import TidingsPush
import TidingsServer
import TidingsStore
import TidingsTesting

/// `POST /v1/live-activities`: validation, token selection, headers and payload, the priority budget and
/// token hygiene, against a recording provider.
@Suite struct LiveActivityPushAPITests {
    let harness: APIHarness
    let provider: RecordingPushProvider

    init(configure: (inout LiveActivityLimits) -> Void = { _ in }) throws {
        let provider = RecordingPushProvider()
        self.provider = provider
        harness = try APIHarness(provider: provider) { configuration in
            configuration.liveActivities.retryDelay = .zero
            configuration.liveActivities.maximumRetryDelay = .zero
            configure(&configuration.liveActivities)
        }
    }

    static func laToken(_ seed: Int) -> String { LiveActivityTokenAPITests.laToken(seed) }

    /// Installation `id` with an update token for `activity` and a push-to-start token for `Delivery`.
    func install(_ id: String, seed: Int, activity: String? = nil, userID: String? = nil) async throws {
        var fields: [String: JSONValue] = ["apns_token": .string(APIHarness.token(seed))]
        if let userID { fields["user_id"] = .string(userID) }
        try await harness.register(id, fields)
        if let activity {
            let reply = try await harness.call(
                "PUT", "/v1/installations/\(id)/live-activities/\(activity)", key: harness.appKey,
                json: ["token": .string(Self.laToken(seed)), "attributes_type": "Delivery"])
            #expect(reply.status == 201)
        }
        let start = try await harness.call(
            "PUT", "/v1/installations/\(id)/push-to-start-tokens/Delivery", key: harness.appKey,
            json: ["token": .string(Self.laToken(seed + 100))])
        #expect(start.status == 201)
    }

    func post(_ body: JSONValue, key: String? = nil) async throws -> APIHarness.Reply {
        try await harness.call("POST", "/v1/live-activities", key: key ?? harness.serverKey, json: body)
    }

    static let update: JSONValue = ["event": "update", "activity_id": "order-42", "content_state": ["eta": 5]]

    @Test func anUpdateGoesToEveryTokenOfTheActivityAsALiveActivityPushAtPriority5() async throws {
        try await install("inst-1", seed: 1, activity: "order-42")
        try await install("inst-2", seed: 2, activity: "order-42")
        try await install("inst-3", seed: 3, activity: "order-7")
        let reply = try await post([
            "event": "update", "activity_id": "order-42", "content_state": ["eta": 5, "driver": "Ana"],
            "stale_date": 1_800_000_600, "relevance_score": 50,
            "alert": ["title": "Nearly there", "body": "5 minutes"],
        ])
        #expect(reply.status == 200, "\(reply.json)")
        #expect(reply.json["targets"]?.integerValue == 2)
        #expect(reply.json["sent"]?.integerValue == 2)
        let pushes = provider.pushes
        #expect(Set(pushes.map(\.token)) == [Self.laToken(1), Self.laToken(2)])
        for push in pushes {
            #expect(push.pushType == .liveActivity)
            #expect(push.topic == "com.example.main")
            #expect(APNsRequestBuilder.apnsTopic(for: push) == "com.example.main.push-type.liveactivity")
            #expect(push.priority == 5)
            #expect(push.expiration == APIHarness.startDate.addingTimeInterval(3600))
            let aps = try JSONValue.parse(Data(push.payload))["aps"]
            #expect(aps?["event"]?.stringValue == "update")
            #expect(aps?["timestamp"]?.integerValue == 1_800_000_000)
            #expect(aps?["content-state"]?["driver"]?.stringValue == "Ana")
            #expect(aps?["stale-date"]?.integerValue == 1_800_000_600)
            #expect(aps?["alert"]?["title"]?.stringValue == "Nearly there")
            #expect(aps?["attributes"] == nil, "attributes go only with start")
        }
        let stored = try harness.store.liveActivityTokens(appID: harness.appID, activityID: "order-42")
        #expect(stored.allSatisfy { $0.lastOutcome == "sent" && $0.lastSentAt == harness.now })
    }

    @Test func startGoesToPushToStartTokensOfTheAudienceWithAttributes() async throws {
        try await install("inst-1", seed: 1, userID: "u1")
        try await install("inst-2", seed: 2, userID: "u2")
        try await harness.register("inst-3", ["apns_token": .string(APIHarness.token(3)), "user_id": "u1"])
        _ = try await harness.call("PUT", "/v1/users/u1/tags", key: harness.serverKey, json: ["tags": ["vip"]])
        let reply = try await post([
            "event": "start", "activity_id": "match-9", "target": ["tags": "vip"],
            "attributes_type": "Delivery", "attributes": ["order": "A-1"], "content_state": ["eta": 30],
            "alert": ["title": "Order on its way", "body": "Track it live", "sound": "default"],
        ])
        #expect(reply.status == 200, "\(reply.json)")
        #expect(reply.json["targets"]?.integerValue == 1)
        #expect(
            reply.json["skipped"]?["no_live_activity_token"]?.integerValue == 1, "inst-3 has no push-to-start token")
        let pushes = provider.pushes
        #expect(pushes.map(\.token) == [Self.laToken(101)])
        let aps = try JSONValue.parse(Data(pushes[0].payload))["aps"]
        #expect(aps?["event"]?.stringValue == "start")
        #expect(aps?["attributes-type"]?.stringValue == "Delivery")
        #expect(aps?["attributes"]?["order"]?.stringValue == "A-1")
        #expect(aps?["attributes"]?["tidingsActivityID"]?.stringValue == "match-9")
        #expect(aps?["alert"]?["sound"]?.stringValue == "default")
    }

    @Test func endByAudienceReachesTheUpdateTokensOfTheAttributesType() async throws {
        try await install("inst-1", seed: 1, activity: "order-1")
        try await install("inst-2", seed: 2, activity: "order-2")
        let other = try await harness.call(
            "PUT", "/v1/installations/inst-2/live-activities/score-1", key: harness.appKey,
            json: ["token": .string(Self.laToken(50)), "attributes_type": "Score"])
        #expect(other.status == 201)
        let reply = try await post([
            "event": "end", "target": ["installation_ids": ["inst-1", "inst-2", "ghost"]],
            "attributes_type": "Delivery", "dismissal_date": 1_800_000_100, "content_state": ["eta": 0],
        ])
        #expect(reply.status == 200, "\(reply.json)")
        #expect(Set(provider.pushes.map(\.token)) == [Self.laToken(1), Self.laToken(2)])
        #expect(reply.json["skipped"]?["unknown_installation"]?.integerValue == 1)
        let aps = try JSONValue.parse(Data(provider.pushes[0].payload))["aps"]
        #expect(aps?["dismissal-date"]?.integerValue == 1_800_000_100)
    }

    @Test func unregisteredTokensAreRemovedAndFailuresCounted() async throws {
        try await install("inst-1", seed: 1, activity: "order-42")
        try await install("inst-2", seed: 2, activity: "order-42")
        try await install("inst-3", seed: 3, activity: "order-42")
        provider.script(
            token: Self.laToken(1),
            [PushOutcome(disposition: .tokenInvalid(since: nil), status: 410, reason: "Unregistered")])
        provider.script(token: Self.laToken(2), [PushOutcome(disposition: .failed, status: 400, reason: "BadPayload")])
        provider.script(
            token: Self.laToken(3),
            [PushOutcome(disposition: .retry(after: nil), status: 503, reason: "ServiceUnavailable")])
        let reply = try await post(Self.update)
        #expect(reply.json["sent"]?.integerValue == 1, "the retried push went through")
        #expect(reply.json["removed"]?.integerValue == 1)
        #expect(reply.json["failed"]?["BadPayload"]?.integerValue == 1)
        let left = try harness.store.liveActivityTokens(appID: harness.appID, activityID: "order-42")
        #expect(left.map(\.installationID) == ["inst-2", "inst-3"])
        #expect(left.first?.lastOutcome == "BadPayload")
        #expect(provider.pushCountsByToken[Self.laToken(3)] == 2)
    }

    @Test func priority10DrawsOnTheActivityBudgetThenDowngradesOrRefuses() async throws {
        let fixture = try LiveActivityPushAPITests { $0.priorityBudget = 2 }
        try await fixture.install("inst-1", seed: 1, activity: "order-42")
        var urgent = Self.update
        urgent = .object((urgent.objectValue ?? [:]).merging(["priority": 10]) { _, new in new })
        for _ in 0..<2 {
            let reply = try await fixture.post(urgent)
            #expect(reply.json["downgraded"]?.integerValue == 0)
        }
        let third = try await fixture.post(urgent)
        #expect(third.status == 200)
        #expect(third.json["downgraded"]?.integerValue == 1)
        #expect(fixture.provider.pushes.map(\.priority) == [10, 10, 5])
        var refusing = urgent.objectValue ?? [:]
        refusing["on_budget_exhausted"] = "refuse"
        let refused = try await fixture.post(.object(refusing))
        #expect(refused.status == 429)
        #expect(refused.errorCode == "priority_budget_exhausted")
        #expect(refused.errorMessage.contains("2 priority-10"))
        #expect(fixture.provider.pushes.count == 3, "a refused request sends nothing")
        fixture.harness.clock.advance(by: .seconds(3600))
        _ = try await fixture.post(urgent)
        #expect(fixture.provider.pushes.last?.priority == 10, "a new window brings the budget back")
    }

    @Test func aBudgetOfZeroAllowsNoPriority10() async throws {
        let fixture = try LiveActivityPushAPITests { $0.priorityBudget = 0 }
        try await fixture.install("inst-1", seed: 1, activity: "order-42")
        let reply = try await fixture.post(
            ["event": "update", "activity_id": "order-42", "content_state": ["eta": 1], "priority": 10])
        #expect(reply.json["downgraded"]?.integerValue == 1)
        #expect(fixture.provider.pushes.map(\.priority) == [5])
    }

    @Test func tooManyRecipientsIsRefusedBeforeSending() async throws {
        let fixture = try LiveActivityPushAPITests { $0.maximumRecipients = 1 }
        try await fixture.install("inst-1", seed: 1, activity: "order-42")
        try await fixture.install("inst-2", seed: 2, activity: "order-42")
        let reply = try await fixture.post(Self.update)
        #expect(reply.status == 422)
        #expect(reply.errorCode == "too_many_recipients")
        #expect(reply.errorMessage.contains("the limit is 1"))
        #expect(fixture.provider.pushes.isEmpty)
    }

    @Test func updateTokensOlderThanAnActivityCanLiveAreNotSent() async throws {
        try await install("inst-1", seed: 1, activity: "order-42")
        harness.clock.advance(by: .seconds(13 * 3600))
        let reply = try await post(Self.update)
        #expect(reply.json["targets"]?.integerValue == 0)
        #expect(provider.pushes.isEmpty)
        #expect(try harness.store.liveActivityTokens(appID: harness.appID, activityID: "order-42").isEmpty)
    }

    @Test func needsAServerKeyAndAProvider() async throws {
        #expect(try await post(Self.update, key: harness.appKey).status == 403)
        let bare = try APIHarness()
        let reply = try await bare.call("POST", "/v1/live-activities", key: bare.serverKey, json: Self.update)
        #expect(reply.status == 503)
        #expect(reply.errorCode == "no_provider")
    }

    static let invalidBodies: [(JSONValue, Int, String, String)] = [
        (["activity_id": "a", "content_state": [:]], 400, "invalid_event", "event"),
        (["event": "pause", "activity_id": "a", "content_state": [:]], 400, "invalid_event", "pause"),
        (["event": "update", "content_state": [:]], 400, "invalid_field", "activity_id or target"),
        (
            ["event": "update", "activity_id": "a", "target": ["all": true], "content_state": [:]], 400,
            "invalid_field", "not both"
        ),
        (["event": "update", "activity_id": "a"], 400, "invalid_field", "content_state"),
        (["event": "update", "activity_id": "a", "content_state": [1, 2]], 400, "invalid_field", "JSON object"),
        (
            [
                "event": "start", "activity_id": "a", "attributes_type": "D", "attributes": [:],
                "content_state": [:], "alert": ["title": "t", "body": "b"],
            ], 400, "invalid_field", "target"
        ),
        (
            [
                "event": "start", "target": ["all": true], "attributes_type": "D", "content_state": [:],
                "alert": ["title": "t", "body": "b"],
            ], 400, "invalid_field", "attributes"
        ),
        (
            [
                "event": "start", "target": ["all": true], "attributes_type": "D", "attributes": [:],
                "content_state": [:],
            ], 400, "invalid_field", "alert"
        ),
        (
            ["event": "update", "activity_id": "a", "content_state": [:], "stale_date": 1_799_999_999], 400,
            "invalid_date_order", "after timestamp"
        ),
        (
            ["event": "update", "activity_id": "a", "content_state": [:], "dismissal_date": 1_800_000_100], 400,
            "invalid_field", "only sent to end"
        ),
        (
            ["event": "end", "activity_id": "a", "dismissal_date": 1_799_000_000], 400, "invalid_date_order",
            "must not be before timestamp"
        ),
        (
            ["event": "end", "activity_id": "a", "stale_date": 1_800_000_500, "dismissal_date": 1_800_000_100],
            400, "invalid_date_order", "must not be after dismissal_date"
        ),
        (
            ["event": "update", "activity_id": "a", "content_state": [:], "stale_date": 1_800_000_600_000], 400,
            "invalid_field", "not milliseconds"
        ),
        (
            ["event": "update", "activity_id": "a", "content_state": [:], "priority": 7], 400, "invalid_field",
            "5 or 10"
        ),
        (
            ["event": "update", "activity_id": "a", "content_state": [:], "relevance_score": -1], 400,
            "invalid_field", "relevance_score"
        ),
        (
            ["event": "update", "activity_id": "a", "content_state": [:], "alert": ["title": "t"]], 400,
            "invalid_field", "title and body"
        ),
        (["event": "update", "activity_id": "a", "content_state": [:], "ttl": 86_400], 400, "invalid_field", "43200"),
        (
            ["event": "update", "activity_id": "a", "content_state": [:], "colour": "red"], 400, "invalid_field",
            "colour"
        ),
        (
            ["event": "update", "activity_id": "a", "content_state": [:], "on_budget_exhausted": "wait"], 400,
            "invalid_field", "downgrade or refuse"
        ),
        (
            ["event": "update", "target": ["tags": "vip AND"], "content_state": [:]], 400,
            "invalid_tag_expression", "position"
        ),
        (
            [
                "event": "update", "activity_id": "a",
                "content_state": ["text": .string(String(repeating: "x", count: 5000))],
            ], 413, "payload_too_large", "the limit is 4096 bytes"
        ),
    ]

    @Test(arguments: invalidBodies)
    func anInvalidRequestIsRefusedWithATypedError(_ body: JSONValue, _ status: Int, _ code: String, _ text: String)
        async throws
    {
        try await install("inst-1", seed: 1, activity: "a")
        let reply = try await post(body)
        #expect(reply.status == status, "\(reply.json)")
        #expect(reply.errorCode == code)
        #expect(reply.errorMessage.contains(text), "\(reply.errorMessage)")
        #expect(provider.pushes.isEmpty, "nothing is sent")
    }
}
