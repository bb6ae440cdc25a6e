import Foundation
import Testing
import TidingsCampaigns
import TidingsModel
import TidingsPush
import TidingsServer
import TidingsStore
import TidingsStoreTesting

/// Messages that use user profiles and saved segments: `{{user.NAME}}` rendered from the profile of each
/// installation's user, and `segment:NAME` expanded when the message is accepted, so later edits of the
/// segment do not change who it reaches.
@Suite struct ProfileAndSegmentMessageTests {
    @Test(arguments: StoreBackend.allCases)
    func templatesReadTheUsersProfileAndSegmentsAreKeptAsAccepted(_ backend: StoreBackend) async throws {
        let fixture = try MessageFixture(backend: backend)
        try await fixture.register("alice-phone", seed: 1, ["user_id": "alice", "attributes": ["plan": "gold"]])
        try await fixture.register("alice-pad", seed: 2, ["user_id": "alice", "attributes": ["plan": "gold"]])
        try await fixture.register("bob-phone", seed: 3, ["user_id": "bob", "attributes": ["plan": "gold"]])
        try await fixture.register("free-phone", seed: 4, ["attributes": ["plan": "free"]])
        _ = try fixture.store.updateUserProfile(appID: fixture.harness.appID, userID: "alice", now: 0) { _ in
            ["first_name": .string("Alice")]
        }
        let segment = Segment(
            id: "seg_gold", name: "gold", expression: "attributes.plan = gold", createdAt: 0, updatedAt: 0)
        try fixture.store.saveSegment(appID: fixture.harness.appID, segment)
        let reply = try await fixture.send([
            "audience": "segment:gold",
            "send_at": .integer(fixture.harness.now / 1000 + 60),
            "content": ["title": #"Hi {{ user.first_name | default: "there" }}"#, "body": "Gold news"],
        ])
        #expect(reply.status == 202, "\(reply.json)")
        // Edited after the message was accepted: the message keeps the expression it was accepted with.
        var edited = segment
        edited.expression = "attributes.plan = free"
        try fixture.store.saveSegment(appID: fixture.harness.appID, edited)
        fixture.clock.advance(by: .seconds(60))
        _ = try await CampaignResolver(store: fixture.store, clock: fixture.clock).drain()
        try await fixture.worker().drain()
        var titles: [String: String] = [:]
        for push in fixture.provider.pushes {
            titles[push.installationID ?? ""] = try JSONValue.parse(push.payload)["aps"]?["alert"]?["title"]?
                .stringValue
        }
        #expect(titles == ["alice-phone": "Hi Alice", "alice-pad": "Hi Alice", "bob-phone": "Hi there"])

        let unknown = try await fixture.send(["audience": "segment:silver", "content": ["title": "x"]])
        #expect(unknown.status == 400 && unknown.errorCode == "invalid_audience")
        #expect(unknown.errorMessage.contains("unknown_segment at column 9"), "\(unknown.errorMessage)")
    }
}
