import Foundation
import Testing
import TidingsCrypto
import TidingsModel
import TidingsServer
import TidingsStore

/// `DELETE /v1/users/{id}` erases: the audit trail names a pseudonym, message plans too, and a device that
/// still believes it is logged in cannot silently bind the erased user again (docs/security.md, *What erasure
/// does*).
@Suite struct UserErasureTests {
    static let identityKey = ES256Key.generate()

    /// Alice on two installations with attributes, tags set with the server key (audited), a message to her.
    static func populated() async throws -> APIHarness {
        let harness = try APIHarness()
        let admin = AppAdministration(store: harness.store, clock: harness.clock)
        _ = try admin.addIdentityKey(app: "main", keyID: "k1", pem: Self.identityKey.publicKeyPEM())
        for (id, seed) in [("alice-phone", 1), ("alice-pad", 2)] {
            try await harness.register(
                id,
                [
                    "user_id": "alice", "apns_token": .string(APIHarness.token(seed)),
                    "attributes": ["first_name": "Alicia", "email": "alicia@example.org"],
                ])
        }
        let tags = try await harness.call(
            "PUT", "/v1/users/alice/tags", key: harness.serverKey, json: ["tags": ["vip"]])
        #expect(tags.status == 200)
        return harness
    }

    func token(_ harness: APIHarness, _ user: String, issuedAt: Date) throws -> String {
        try JWTSigner(key: Self.identityKey, keyID: "k1").sign(
            subject: user, audience: "app_main", issuedAt: issuedAt, lifetime: .seconds(3600))
    }

    @Test func theAnswerCountsWhatWasErasedAndNamesThePseudonym() async throws {
        let harness = try await Self.populated()
        let reply = try await harness.call("DELETE", "/v1/users/alice", key: harness.serverKey)
        #expect(reply.status == 200, "\(reply.json)")
        let pseudonym = try #require(reply.json["pseudonym"]?.stringValue)
        #expect(pseudonym.hasPrefix("erased:") && pseudonym.count == 7 + 32)
        #expect(!pseudonym.contains("alice"))
        #expect(reply.json["installations_unbound"] == 2)
        #expect(reply.json["audit_entries_pseudonymised"] == 1)
        #expect(reply.json["forwarder_notices_queued"] == 0)
        let again = try await harness.call("DELETE", "/v1/users/alice", key: harness.serverKey)
        #expect(again.json["pseudonym"]?.stringValue == pseudonym, "the same id gets the same pseudonym")
        let bob = try await harness.call("DELETE", "/v1/users/bob", key: harness.serverKey)
        #expect(bob.json["pseudonym"]?.stringValue != pseudonym)
        for id in ["alice-phone", "alice-pad"] {
            #expect(try harness.store.installation(appID: "app_main", installationID: id)?.attributes == [:])
        }
    }

    @Test func theAuditTrailNamesThePseudonymAndNeverTheErasedID() async throws {
        let harness = try await Self.populated()
        let reply = try await harness.call("DELETE", "/v1/users/alice", key: harness.serverKey)
        let pseudonym = try #require(reply.json["pseudonym"]?.stringValue)
        let targets = try harness.store.auditEntries(beforeSequence: nil, limit: 100).map(\.target)
        #expect(targets.contains("/v1/users/\(pseudonym)"), "the erasure itself is audited, under the pseudonym")
        #expect(targets.contains("/v1/users/\(pseudonym)/tags"), "earlier entries are pseudonymised")
        #expect(targets.allSatisfy { !$0.contains("alice") }, "\(targets)")
    }

    @Test func aMessagePlanNamesThePseudonymInPlaceOfTheUser() async throws {
        let (fixture, messageID) = try await UserPrivacyTests.messageToErasedUser()
        let plan = try #require(try fixture.store.message(appID: "app_main", messageID: messageID)?.plan)
        #expect(!plan.contains("alice"))
        #expect(plan.contains("erased:"))
        #expect(plan.contains("bob"))
    }

    @Test func aDeviceStillLoggedInCannotBindTheErasedUserAgain() async throws {
        let harness = try await Self.populated()
        #expect(try await harness.call("DELETE", "/v1/users/alice", key: harness.serverKey).status == 200)
        for installation in ["alice-phone", "new-phone"] {
            let reply = try await harness.call(
                "PUT", "/v1/installations/\(installation)", key: harness.appKey, json: ["user_id": "alice"])
            #expect(reply.status == 409, "\(installation): \(reply.json)")
            #expect(reply.errorCode == "user_erased")
            #expect(reply.errorMessage.contains("X-Tidings-User-Token"))
        }
        #expect(try harness.store.installation(appID: "app_main", installationID: "alice-phone")?.userID == nil)
        #expect(try harness.store.installation(appID: "app_main", installationID: "new-phone") == nil)
        // Writes that do not bind the user go through, and other users bind as before.
        try await harness.register("alice-phone", ["locale": "fr_FR"])
        try await harness.register("alice-phone", ["user_id": "carol"])
    }

    @Test func aUserTokenIssuedAfterTheErasureOrTheServerKeyBindsTheUserAgain() async throws {
        let harness = try await Self.populated()
        let before = harness.clock.now
        harness.clock.advance(by: .seconds(5))
        #expect(try await harness.call("DELETE", "/v1/users/alice", key: harness.serverKey).status == 200)

        let stale = try await harness.call(
            "PUT", "/v1/installations/alice-phone", key: harness.appKey, json: ["user_id": "alice"],
            headers: [("X-Tidings-User-Token", try token(harness, "alice", issuedAt: before))])
        #expect(stale.status == 409, "a token from before the erasure proves nothing new")
        let someoneElse = try await harness.call(
            "PUT", "/v1/installations/alice-phone", key: harness.appKey, json: ["user_id": "alice"],
            headers: [("X-Tidings-User-Token", try token(harness, "bob", issuedAt: harness.clock.now))])
        #expect(someoneElse.status == 409)

        harness.clock.advance(by: .seconds(1))
        let fresh = try await harness.call(
            "PUT", "/v1/installations/alice-phone", key: harness.appKey, json: ["user_id": "alice"],
            headers: [("X-Tidings-User-Token", try token(harness, "alice", issuedAt: harness.clock.now))])
        #expect(fresh.status == 200, "\(fresh.json)")
        #expect(fresh.json["user_id"] == "alice")

        let server = try await harness.call(
            "PUT", "/v1/installations/alice-pad", key: harness.serverKey, json: ["user_id": "alice"])
        #expect(server.status == 200, "the app's backend binds whom it means to")
    }

    @Test func withCachesAnErasureIsSeenByTheNextRegistration() async throws {
        // Cached for a minute: only the store's announcement of the erasure can make the refusal happen.
        let harness = try APIHarness { $0.keyCacheSeconds = 60 }
        try await harness.register("alice-phone", ["user_id": "alice"])
        try await harness.register("alice-phone", ["user_id": "alice"])  // "never erased" is cached now
        #expect(try await harness.call("DELETE", "/v1/users/alice", key: harness.serverKey).status == 200)
        let again = try await harness.call(
            "PUT", "/v1/installations/alice-phone", key: harness.appKey, json: ["user_id": "alice"])
        #expect(again.status == 409, "\(again.json)")
        #expect(again.errorCode == "user_erased")
    }

    @Test func anotherAppsErasureDoesNotRefuseItsUsers() async throws {
        let harness = try await Self.populated()
        #expect(try await harness.call("DELETE", "/v1/users/alice", key: harness.otherServerKey).status == 200)
        try await harness.register("alice-third", ["user_id": "alice"])
    }
}
