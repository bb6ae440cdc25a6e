import Foundation
import Testing
import TidingsModel
import TidingsServer
import TidingsStore

/// Privacy requests for one person: `GET /v1/users/{id}/export` and `DELETE /v1/users/{id}`.
@Suite struct UserPrivacyTests {
    /// Alice on two installations with tags and events, Bob on one, an anonymous one, and Alice of the other app.
    static func populated(configure: (inout TidingsAPI.Configuration) -> Void = { _ in }) async throws -> APIHarness {
        let harness = try APIHarness(configure: configure)
        try await harness.register("alice-phone", ["user_id": "alice", "apns_token": .string(APIHarness.token(1))])
        try await harness.register("alice-pad", ["user_id": "alice", "apns_token": .string(APIHarness.token(2))])
        try await harness.register("bob-phone", ["user_id": "bob", "apns_token": .string(APIHarness.token(3))])
        try await harness.register("anonymous", ["apns_token": .string(APIHarness.token(4))])
        try await harness.register("other-alice", ["user_id": "alice"], key: harness.otherAppKey)
        for (user, tags) in [("alice", ["vip", "shoes", "alice-only"]), ("bob", ["vip", "shoes"])] {
            let reply = try await harness.call(
                "PUT", "/v1/users/\(user)/tags", key: harness.serverKey,
                json: ["tags": .array(tags.map(JSONValue.string))])
            #expect(reply.status == 200, "\(reply.json)")
        }
        let otherTags = try await harness.call(
            "PUT", "/v1/users/alice/tags", key: harness.otherServerKey, json: ["tags": ["other-vip"]])
        #expect(otherTags.status == 200)

        let events: [JSONValue] = [
            harness.event("delivery", installation: "alice-phone", extra: ["user_id": "alice"]),
            harness.event("open", installation: "alice-phone", extra: ["user_id": "alice"]),
            harness.event("delivery", installation: "alice-pad", extra: ["user_id": "alice"]),
            harness.event("delivery", installation: "bob-phone", extra: ["user_id": "bob"]),
            harness.event("open", installation: "bob-phone", extra: ["user_id": "bob"]),
            harness.event("delivery", installation: "anonymous"),
        ]
        let posted = try await harness.postAsDevices(events)
        #expect(posted.json["receipts"]?.arrayValue?.allSatisfy { $0["status"] == "accepted" } == true)
        let other = try await harness.postEvents(
            json: ["events": [harness.event("delivery", installation: "other-alice", extra: ["user_id": "alice"])]],
            as: "other-alice", key: harness.otherAppKey)
        #expect(other.status == 200)
        return harness
    }

    static func installationIDs(_ reply: APIHarness.Reply) -> Set<String> {
        Set(reply.json["installations"]?.arrayValue?.compactMap { $0["installation_id"]?.stringValue } ?? [])
    }

    // MARK: Erasure

    @Test func deletingAUserUnbindsOnlyTheirInstallationsAndKeepsTheirTokens() async throws {
        let harness = try await Self.populated()
        let reply = try await harness.call("DELETE", "/v1/users/alice", key: harness.serverKey)
        #expect(reply.status == 200, "\(reply.json)")
        #expect(reply.json["user_id"] == "alice")
        #expect(reply.json["installations_unbound"] == 2)
        #expect(reply.json["tags_deleted"] == 3)
        #expect(reply.json["events_pseudonymised"] == 3)

        let store = harness.store
        for (id, seed) in [("alice-phone", 1), ("alice-pad", 2)] {
            let installation = try #require(try store.installation(appID: "app_main", installationID: id))
            #expect(installation.userID == nil)
            #expect(installation.apnsToken == APIHarness.token(seed))
        }
        #expect(try store.installation(appID: "app_main", installationID: "bob-phone")?.userID == "bob")
        #expect(
            try store.installation(appID: "app_main", installationID: "anonymous")?.apnsToken == APIHarness.token(4))
        // Another app's Alice is another person's data: untouched.
        #expect(try store.installation(appID: "app_other", installationID: "other-alice")?.userID == "alice")
        #expect(try store.tags(appID: "app_other", userID: "alice") == ["other-vip"])
        #expect(
            try store.events(appID: "app_other", query: EventQuery(userID: "alice")).events.count == 1)

        let byUser = try await harness.call(
            "GET", "/v1/installations", key: harness.serverKey, query: [("user_id", "alice")])
        #expect(Self.installationIDs(byUser).isEmpty)
    }

    @Test func deletingAUserDeletesTheirTagsAndTheAppsTagCountsDrop() async throws {
        // Room for exactly the three distinct tags there are, so a new one fits only once Alice's are gone.
        let harness = try await Self.populated { $0.tagLimits.maximumDistinctPerApp = 3 }
        let full = try await harness.call(
            "POST", "/v1/users/carol/tags", key: harness.serverKey, json: ["tags": ["new"]])
        #expect(full.status == 422, "\(full.json)")
        #expect(full.errorCode == "limit_exceeded")

        #expect(try await harness.call("DELETE", "/v1/users/alice", key: harness.serverKey).status == 200)
        #expect(try harness.store.tags(appID: "app_main", userID: "alice").isEmpty)
        #expect(try harness.store.tags(appID: "app_main", userID: "bob") == ["shoes", "vip"])
        // `alice-only` had Alice alone: its place is free. `vip` still has Bob.
        let fits = try await harness.call(
            "POST", "/v1/users/carol/tags", key: harness.serverKey, json: ["tags": ["new"]])
        #expect(fits.status == 200, "\(fits.json)")
        let tooMany = try await harness.call(
            "POST", "/v1/users/carol/tags", key: harness.serverKey, json: ["tags": ["another"]])
        #expect(tooMany.status == 422)
        let vip = try await harness.call("GET", "/v1/installations", key: harness.serverKey, query: [("tag", "vip")])
        #expect(Self.installationIDs(vip) == ["bob-phone"])
    }

    @Test func deletingAUserStripsTheUserFromEventsButKeepsThemAndTheFunnel() async throws {
        let harness = try await Self.populated()
        let before = try await harness.call("GET", "/v1/campaigns/c1/stats", key: harness.serverKey)
        let eventsBefore = try harness.store.events(appID: "app_main", query: EventQuery(limit: 1000)).events

        #expect(try await harness.call("DELETE", "/v1/users/alice", key: harness.serverKey).status == 200)

        let after = try await harness.call("GET", "/v1/campaigns/c1/stats", key: harness.serverKey)
        #expect(after.json == before.json)
        #expect(after.json["delivered"] == 4)
        let eventsAfter = try harness.store.events(appID: "app_main", query: EventQuery(limit: 1000)).events
        #expect(eventsAfter.count == eventsBefore.count)
        #expect(eventsAfter.map(\.event.eventID) == eventsBefore.map(\.event.eventID))
        #expect(eventsAfter.allSatisfy { $0.event.userID != "alice" })
        #expect(eventsAfter.filter { $0.event.userID == "bob" }.count == 2)
        // Only the user id went: the rest of each event is as it was.
        for (old, new) in zip(eventsBefore, eventsAfter) {
            var expected = old.event
            if expected.userID == "alice" { expected.userID = nil }
            #expect(new.event == expected)
        }
        #expect(try harness.store.events(appID: "app_main", query: EventQuery(userID: "alice")).events.isEmpty)
    }

    @Test func deletingTwiceOrAnUnknownUserChangesNothingAndCountsZero() async throws {
        let harness = try await Self.populated()
        #expect(try await harness.call("DELETE", "/v1/users/alice", key: harness.serverKey).status == 200)
        for user in ["alice", "nobody"] {
            let reply = try await harness.call("DELETE", "/v1/users/\(user)", key: harness.serverKey)
            #expect(reply.status == 200)
            #expect(reply.json["installations_unbound"] == 0)
            #expect(reply.json["tags_deleted"] == 0)
            #expect(reply.json["events_pseudonymised"] == 0)
        }
        #expect(try harness.store.installation(appID: "app_main", installationID: "bob-phone")?.userID == "bob")
    }

    @Test func appKeysMayNeitherEraseNorExport() async throws {
        let harness = try await Self.populated()
        try await harness.register("alice-phone", ["locale": "ja_JP"])  // the harness holds its secret
        for (method, path) in [("DELETE", "/v1/users/alice"), ("GET", "/v1/users/alice/export")] {
            let reply = try await harness.call(
                method, path, key: harness.appKey, headers: [("X-Tidings-Installation", "alice-phone")])
            #expect(reply.status == 403, "\(method) \(path): \(reply.json)")
            #expect(reply.errorCode == "forbidden")
            #expect(try await harness.call(method, path).status == 401)
        }
        #expect(try harness.store.installation(appID: "app_main", installationID: "alice-phone")?.userID == "alice")
        #expect(try harness.store.tags(appID: "app_main", userID: "alice").count == 3)
    }

    @Test func anotherAppsServerKeyErasesOnlyItsOwnUser() async throws {
        let harness = try await Self.populated()
        let reply = try await harness.call("DELETE", "/v1/users/alice", key: harness.otherServerKey)
        #expect(reply.json["installations_unbound"] == 1)
        #expect(reply.json["tags_deleted"] == 1)
        #expect(reply.json["events_pseudonymised"] == 1)
        #expect(try harness.store.installation(appID: "app_main", installationID: "alice-phone")?.userID == "alice")
        #expect(try harness.store.tags(appID: "app_main", userID: "alice").count == 3)
    }

    // MARK: Export

    @Test func theExportHoldsTheUsersInstallationsTagsAndEventsAndNoSecret() async throws {
        let harness = try await Self.populated()
        let secrets = harness.secrets.withLock { $0 }
        #expect(secrets["alice-phone"] != nil, "app-key registrations were issued secrets")

        let reply = try await harness.call("GET", "/v1/users/alice/export", key: harness.serverKey)
        #expect(reply.status == 200, "\(reply.json)")
        #expect(reply.json["user_id"] == "alice")
        #expect(reply.json["exported_at"] == .integer(harness.now))
        #expect(Self.installationIDs(reply) == ["alice-phone", "alice-pad"])
        let installations = try #require(reply.json["installations"]?.arrayValue)
        #expect(installations.allSatisfy { $0["user_id"] == "alice" })
        #expect(
            Set(installations.compactMap { $0["apns_token"]?.stringValue }) == [
                APIHarness.token(1), APIHarness.token(2),
            ])
        #expect(installations.allSatisfy { $0.objectValue?.keys.contains { $0.contains("secret") } == false })
        #expect(reply.json["tags"] == ["alice-only", "shoes", "vip"])
        let events = try #require(reply.json["events"]?.arrayValue)
        #expect(events.count == 3)
        #expect(events.allSatisfy { $0["user_id"] == "alice" })
        #expect(Set(events.compactMap { $0["installation_id"]?.stringValue }) == ["alice-phone", "alice-pad"])
        #expect(events.allSatisfy { $0["received_at"] != nil })
        #expect(reply.json["events_truncated"] == false)

        let body = String(decoding: reply.response.body, as: UTF8.self)
        for secret in secrets.values { #expect(!body.contains(secret)) }
        #expect(!body.contains("tdg_ins_"))
        #expect(!body.contains("bob"))
        #expect(!body.contains("other-vip"))
    }

    @Test func anUnknownUserExportsEmptyLists() async throws {
        let harness = try await Self.populated()
        let reply = try await harness.call("GET", "/v1/users/nobody/export", key: harness.serverKey)
        #expect(reply.status == 200)
        #expect(reply.json["user_id"] == "nobody")
        #expect(reply.json["installations"] == .array([]))
        #expect(reply.json["tags"] == .array([]))
        #expect(reply.json["events"] == .array([]))
        #expect(reply.json["events_truncated"] == false)
    }

    @Test func afterErasureTheExportIsEmpty() async throws {
        let harness = try await Self.populated()
        #expect(try await harness.call("DELETE", "/v1/users/alice", key: harness.serverKey).status == 200)
        let reply = try await harness.call("GET", "/v1/users/alice/export", key: harness.serverKey)
        #expect(reply.json["installations"] == .array([]))
        #expect(reply.json["tags"] == .array([]))
        #expect(reply.json["events"] == .array([]))
    }

    @Test func anOverlongUserIDIs400() async throws {
        let harness = try APIHarness()
        let userID = String(repeating: "u", count: 257)
        for (method, path) in [("DELETE", "/v1/users/\(userID)"), ("GET", "/v1/users/\(userID)/export")] {
            let reply = try await harness.call(method, path, key: harness.serverKey)
            #expect(reply.status == 400)
            #expect(reply.errorCode == "invalid_parameter")
        }
    }

    // MARK: Messages on their way

    /// A message to Alice and Bob, queued; then Alice is erased.
    static func messageToErasedUser() async throws -> (fixture: MessageFixture, messageID: String) {
        let fixture = try MessageFixture()
        try await fixture.register("alice-phone", seed: 1, ["user_id": "alice"])
        try await fixture.register("bob-phone", seed: 2, ["user_id": "bob"])
        let sent = try await fixture.send(MessageFixture.alert(["user_ids": ["alice", "bob"]]))
        #expect(sent.status == 202, "\(sent.json)")
        let messageID = try #require(sent.json["message_id"]?.stringValue)
        let erased = try await fixture.harness.call("DELETE", "/v1/users/alice", key: fixture.harness.serverKey)
        #expect(erased.json["installations_unbound"] == 1)
        return (fixture, messageID)
    }

    @Test func aMessageQueuedForAnErasedUserIsNotSentToTheirDevice() async throws {
        let (fixture, messageID) = try await Self.messageToErasedUser()
        try await fixture.worker().drain()
        #expect(fixture.provider.pushes.map(\.token) == [APIHarness.token(2)])
        let status = try await fixture.status(messageID)
        #expect(status.count("sent") == 1)
        #expect(status.skipped("user_changed") == 1)
    }

    @Test func erasureLeavesTheUserIDInNoQueuedDelivery() async throws {
        let (fixture, _) = try await Self.messageToErasedUser()
        let now = fixture.harness.now
        let queued = try fixture.store.claimDeliveries(
            worker: "inspect", limit: 100, now: now, leaseUntil: now + 60_000)
        // No delivery keeps the erased user's id: those queued for the user are skipped and forget it.
        #expect(queued.allSatisfy { $0.targetUserID != "alice" }, "\(queued.map(\.targetUserID))")
        #expect(queued.contains { $0.targetUserID == "bob" })
    }
}
