import Foundation
import Testing
import TidingsCrypto
import TidingsModel
import TidingsServer
import TidingsStore
import TidingsStoreTesting

/// A journey triggered by a user profile attribute (`{"attribute": "user.KEY"}`), on both stores: entered for
/// the user when the profile changes through the server routes or an installation of the user (as the SDK
/// sends it), with `becomes` honoured, and kept apart from installation attributes of the same key.
@Suite struct UserProfileJourneyTriggerTests {
    static let upgraded: JSONValue = [
        "name": "Upgraded", "trigger": ["attribute": "user.plan", "becomes": "pro"],
        "steps": [JourneyFixture.send("welcome", "Welcome to Pro")],
    ]

    @Test(arguments: StoreBackend.allCases)
    func aProfileChangeToTheValueEntersTheUserOnEveryDevice(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        try await fixture.register("phone", seed: 1, user: "alice")
        try await fixture.register("tablet", seed: 2, user: "alice")
        try await fixture.register("other", seed: 3, user: "bob")
        let id = try await fixture.start(Self.upgraded)
        let profile = "/v1/users/alice/attributes"

        #expect(try await fixture.call("PATCH", profile, json: ["plan": "free"]).status == 200)
        try await fixture.settle()
        #expect(fixture.titles.isEmpty, "a change to another value")

        #expect(try await fixture.call("PATCH", profile, json: ["plan": "pro", "seats": 3]).status == 200)
        try await fixture.settle()
        #expect(fixture.titles(to: "phone") == ["Welcome to Pro"])
        #expect(fixture.titles(to: "tablet") == ["Welcome to Pro"])
        #expect(fixture.titles(to: "other").isEmpty)
        let journey = try await fixture.journey(id)
        #expect(journey["entered"] == 1)

        try await fixture.advance(seconds: 10)
        _ = try await fixture.call("PUT", profile, json: ["plan": "pro"])
        try await fixture.settle()
        #expect(fixture.titles.count == 2, "a PUT that keeps the value is no change")

        // Bob's profile reaching the value enters bob, and only him.
        _ = try await fixture.call("PUT", "/v1/users/bob/attributes", json: ["plan": "pro"])
        try await fixture.settle()
        #expect(fixture.titles(to: "other") == ["Welcome to Pro"])
        #expect(try await fixture.journey(id)["entered"] == 2)
    }

    @Test(arguments: StoreBackend.allCases)
    func userAndInstallationAttributesOfOneKeyTriggerTheirOwnJourneys(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        try await fixture.register("phone", seed: 1, user: "alice")
        let device = try await fixture.start([
            "name": "Device plan", "trigger": ["attribute": "plan"],
            "steps": [JourneyFixture.send("device", "Device plan")],
        ])
        let user = try await fixture.start([
            "name": "User plan", "trigger": ["attribute": "user.plan"],
            "steps": [JourneyFixture.send("user", "User plan")],
        ])
        #expect(try await fixture.journey(user)["trigger"] == ["attribute": "user.plan"])

        _ = try await fixture.call("PATCH", "/v1/users/alice/attributes", json: ["plan": "pro"])
        try await fixture.settle()
        #expect(fixture.titles == ["User plan"])

        try await fixture.advance(seconds: 1)
        _ = try await fixture.call("PATCH", "/v1/installations/phone/attributes", json: ["plan": "pro"])
        try await fixture.settle()
        #expect(fixture.titles == ["User plan", "Device plan"])

        // A removal is a change too (no `becomes`).
        try await fixture.advance(seconds: 1)
        _ = try await fixture.call("PATCH", "/v1/users/alice/attributes", json: ["plan": nil])
        try await fixture.settle()
        #expect(try await fixture.journey(user)["entered"] == 2)
        #expect(try await fixture.journey(device)["entered"] == 1)
    }

    /// The SDK's route: an app key presenting an installation logged in as the user, with its secret.
    @Test(arguments: StoreBackend.allCases)
    func anInstallationOfTheUserChangesTheProfileAndAnotherCannot(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        try await fixture.register("phone", seed: 1, user: "alice")
        try await fixture.register("intruder", seed: 2, user: "mallory")
        try await fixture.register("anonymous", seed: 3, user: nil)
        let id = try await fixture.start(Self.upgraded)
        let harness = fixture.harness

        for device in ["intruder", "anonymous"] {
            let refused = try await harness.call(
                "PATCH", "/v1/users/alice/attributes", key: harness.appKey, json: ["plan": "pro"],
                headers: APIHarness.device(device))
            #expect(refused.status == 403, "\(device): \(refused.json)")
        }
        let noSecret = try await harness.call(
            "PATCH", "/v1/users/alice/attributes", key: harness.appKey, json: ["plan": "pro"],
            headers: APIHarness.device("phone"), presentSecret: false)
        #expect(noSecret.status == 403, "\(noSecret.json)")
        try await fixture.settle()
        #expect(fixture.titles.isEmpty)
        #expect(try fixture.store.userProfile(appID: harness.appID, userID: "alice") == nil)
        #expect(try fixture.store.journeySignals(limit: 10).isEmpty, "a refused write signals nothing")

        let sent = try await harness.call(
            "PATCH", "/v1/users/alice/attributes", key: harness.appKey, json: ["plan": "pro"],
            headers: APIHarness.device("phone"))
        #expect(sent.status == 200, "\(sent.json)")
        try await fixture.settle()
        #expect(fixture.titles(to: "phone") == ["Welcome to Pro"])
        #expect(try await fixture.journey(id)["entered"] == 1)
    }

    /// With identity verification on, the installation must also present the user's token.
    @Test(arguments: StoreBackend.allCases)
    func identityVerificationAsksTheUsersToken(backend: StoreBackend) async throws {
        let fixture = try JourneyFixture(backend: backend)
        try await fixture.register("phone", seed: 1, user: "alice")
        let key = ES256Key.generate()
        let admin = AppAdministration(store: fixture.store, clock: fixture.clock)
        _ = try admin.updateApp("main", identityVerification: .required)
        _ = try admin.addIdentityKey(app: "main", keyID: "k1", pem: key.publicKeyPEM())
        _ = try await fixture.start(Self.upgraded)
        let harness = fixture.harness
        func patch(token: String?) async throws -> APIHarness.Reply {
            try await harness.call(
                "PATCH", "/v1/users/alice/attributes", key: harness.appKey, json: ["plan": "pro"],
                headers: APIHarness.device("phone") + (token.map { [("X-Tidings-User-Token", $0)] } ?? []))
        }
        let signer = JWTSigner(key: key, keyID: "k1")
        let mallorys = try signer.sign(
            subject: "mallory", audience: "app_main", issuedAt: fixture.clock.now, lifetime: .seconds(600))
        #expect(try await patch(token: nil).errorCode == "identity_token_required")
        #expect(try await patch(token: mallorys).errorCode == "identity_token_invalid")
        try await fixture.settle()
        #expect(fixture.titles.isEmpty)

        let alices = try signer.sign(
            subject: "alice", audience: "app_main", issuedAt: fixture.clock.now, lifetime: .seconds(600))
        #expect(try await patch(token: alices).status == 200)
        try await fixture.settle()
        #expect(fixture.titles == ["Welcome to Pro"])
    }

    @Test func aTriggerNamesAValidUserAttributeKey() async throws {
        let fixture = try JourneyFixture(backend: .sqlite)
        for key in ["user.", "user.first-name", "user.user.plan", "profile.plan", "1plan"] {
            let reply = try await fixture.call(
                "POST", "/v1/journeys:validate",
                json: ["name": "x", "trigger": ["attribute": .string(key)], "steps": [JourneyFixture.send("a", "A")]])
            #expect(reply.json["valid"] == false, "\(key)")
            let errors = reply.json["errors"]?.arrayValue ?? []
            #expect(errors.first?["path"] == "trigger.attribute", "\(key): \(reply.json)")
            #expect(errors.first?["message"]?.stringValue?.contains("user.KEY") == true, "\(key)")
        }
    }
}
