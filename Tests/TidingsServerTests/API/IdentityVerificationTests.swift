import Foundation
import Testing
import TidingsCrypto
import TidingsModel
import TidingsServer
import TidingsStore

/// With identity verification, binding an installation to a user (or changing or clearing it) and user-tag
/// calls through an app key need a user token signed by the app's own backend.
@Suite struct IdentityVerificationTests {
    static let key = ES256Key.generate()
    static let rotatedKey = RS256Key.generate()
    static let otherAppKey = ES256Key.generate()

    struct Setup {
        let harness: APIHarness
        var now: Date { harness.clock.now }

        func token(
            _ user: String, key: ES256Key = IdentityVerificationTests.key, keyID: String? = "k1",
            audience: String = "app_main", lifetime: Duration = .seconds(3600), issuedAt: Date? = nil
        ) throws -> String {
            try JWTSigner(key: key, keyID: keyID).sign(
                subject: user, audience: audience, issuedAt: issuedAt ?? now, lifetime: lifetime)
        }

        func put(_ installation: String, _ fields: [String: JSONValue], token: String?) async throws
            -> APIHarness.Reply
        {
            try await harness.call(
                "PUT", "/v1/installations/\(installation)", key: harness.appKey, json: .object(fields),
                headers: token.map { [("X-Tidings-User-Token", $0)] } ?? [])
        }
    }

    func setup(_ mode: AppRecord.IdentityVerification = .required) throws -> Setup {
        let harness = try APIHarness()
        let admin = AppAdministration(store: harness.store, clock: harness.clock)
        _ = try admin.updateApp("main", identityVerification: mode)
        _ = try admin.addIdentityKey(app: "main", keyID: "k1", pem: Self.key.publicKeyPEM())
        _ = try admin.addIdentityKey(app: "other", keyID: "k1", pem: Self.otherAppKey.publicKeyPEM())
        return Setup(harness: harness)
    }

    @Test func aValidTokenBindsTheUser() async throws {
        let setup = try setup()
        let reply = try await setup.put("inst-1", ["user_id": "alice"], token: try setup.token("alice"))
        #expect(reply.status == 201)
        #expect(reply.json["user_id"] == "alice")
        // Re-sending the same user needs no token: nothing changes hands.
        #expect(try await setup.put("inst-1", ["user_id": "alice", "locale": "ja_JP"], token: nil).status == 200)
    }

    @Test func refusedTokensNameTheCheckThatFailed() async throws {
        let setup = try setup()
        let valid = try setup.token("alice")
        let parts = valid.split(separator: ".").map(String.init)
        let none =
            Base64URL.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8)) + "." + parts[1] + "."
        let cases: [(String, String?, String)] = [
            (
                "expired", try setup.token("alice", issuedAt: setup.now.addingTimeInterval(-7200)),
                "identity_token_expired"
            ),
            ("wrongly signed", try setup.token("alice", key: ES256Key.generate()), "identity_token_invalid"),
            ("alg none", none, "identity_token_invalid"),
            (
                "HS256 with the public key", hs256(claims: parts[1], secret: Self.key.publicKeyPEM()),
                "identity_token_invalid"
            ),
            ("wrong audience", try setup.token("alice", audience: "app_other"), "identity_token_invalid"),
            ("wrong subject", try setup.token("mallory"), "identity_token_invalid"),
            ("over 24 hours", try setup.token("alice", lifetime: .seconds(25 * 3600)), "identity_token_invalid"),
            ("garbage", "not.a.jwt", "identity_token_invalid"),
            ("missing", nil, "identity_token_required"),
        ]
        for (name, token, code) in cases {
            let reply = try await setup.put("inst-\(name.count)", ["user_id": "alice"], token: token)
            #expect(reply.status == 401, "\(name)")
            #expect(reply.errorCode == code, "\(name): \(reply.json)")
            #expect(!reply.errorMessage.contains(token ?? "\u{0}"), "\(name): the token is not echoed")
        }
        #expect(try setup.harness.store.installations(appID: "app_main", query: .init()).isEmpty)
    }

    @Test func changingOrClearingTheUserNeedsATokenForTheUserWhoseBindingChanges() async throws {
        let setup = try setup()
        #expect(try await setup.put("inst-1", ["user_id": "alice"], token: try setup.token("alice")).status == 201)
        // To bob: bob's token.
        #expect(try await setup.put("inst-1", ["user_id": "bob"], token: nil).errorCode == "identity_token_required")
        #expect(try await setup.put("inst-1", ["user_id": "bob"], token: try setup.token("alice")).status == 401)
        #expect(try await setup.put("inst-1", ["user_id": "bob"], token: try setup.token("bob")).status == 200)
        // Logging out: the token of the user who leaves.
        #expect(try await setup.put("inst-1", ["user_id": .null], token: nil).status == 401)
        let out = try await setup.put("inst-1", ["user_id": .null], token: try setup.token("bob"))
        #expect(out.status == 200 && out.json["user_id"] == .null)
    }

    @Test func keysRotateWithTwoRegisteredAtOnce() async throws {
        let setup = try setup()
        _ = try AppAdministration(store: setup.harness.store).addIdentityKey(
            app: "main", keyID: "k2", pem: Self.rotatedKey.publicKeyPEM())
        let old = try setup.token("alice")
        let new = try JWTSigner(key: Self.rotatedKey, keyID: "k2").sign(
            subject: "bob", audience: "app_main", issuedAt: setup.now)
        let noKeyID = try JWTSigner(key: Self.rotatedKey).sign(
            subject: "carol", audience: "app_main", issuedAt: setup.now)
        #expect(try await setup.put("a", ["user_id": "alice"], token: old).status == 201)
        #expect(try await setup.put("b", ["user_id": "bob"], token: new).status == 201)
        #expect(try await setup.put("c", ["user_id": "carol"], token: noKeyID).status == 201)
        // The old key removed: its tokens stop working.
        try AppAdministration(store: setup.harness.store).removeIdentityKey(app: "main", keyID: "k1")
        #expect(try await setup.put("d", ["user_id": "dave"], token: try setup.token("dave")).status == 401)
    }

    @Test func aSecondAppsKeyNeverVerifiesForTheFirst() async throws {
        let setup = try setup()
        let foreign = try setup.token("alice", key: Self.otherAppKey, audience: "app_main")
        let reply = try await setup.put("inst-1", ["user_id": "alice"], token: foreign)
        #expect(reply.errorCode == "identity_token_invalid")
    }

    @Test func userTagsThroughAnAppKeyNeedTheUsersToken() async throws {
        let setup = try setup()
        #expect(try await setup.put("inst-1", ["user_id": "alice"], token: try setup.token("alice")).status == 201)
        let asAlice = [(TidingsAPI.installationHeader, "inst-1")]
        let without = try await setup.harness.call(
            "GET", "/v1/users/alice/tags", key: setup.harness.appKey, headers: asAlice)
        #expect(without.errorCode == "identity_token_required")
        let with = try await setup.harness.call(
            "GET", "/v1/users/alice/tags", key: setup.harness.appKey,
            headers: asAlice + [("X-Tidings-User-Token", try setup.token("alice"))])
        #expect(with.status == 200)
        // Server keys are never limited.
        let server = try await setup.harness.call("GET", "/v1/users/alice/tags", key: setup.harness.serverKey)
        #expect(server.status == 200)
    }

    @Test func optionalVerificationChecksATokenWhenOneIsSent() async throws {
        let setup = try setup(.optional)
        #expect(try await setup.put("a", ["user_id": "alice"], token: nil).status == 201)
        #expect(try await setup.put("b", ["user_id": "bob"], token: try setup.token("mallory")).status == 401)
        #expect(try await setup.put("c", ["user_id": "carol"], token: try setup.token("carol")).status == 201)
    }

    @Test func offTakesUserIDsAsTheAppSays() async throws {
        let setup = try setup(.off)
        #expect(try await setup.put("a", ["user_id": "alice"], token: "whatever").status == 201)
    }

    /// An HS256 token over `claims` keyed with `secret`: the algorithm-confusion attack, which must fail.
    func hs256(claims: String, secret: String) -> String {
        let header = Base64URL.encode(Array(#"{"alg":"HS256","typ":"JWT","kid":"k1"}"#.utf8))
        let input = Array((header + "." + claims).utf8)
        var key = Array(secret.utf8)
        if key.count > 64 { key = SHA256Digest.hash(key) }
        key += [UInt8](repeating: 0, count: 64 - key.count)
        let inner = SHA256Digest.hash(key.map { $0 ^ 0x36 } + input)
        let mac = SHA256Digest.hash(key.map { $0 ^ 0x5c } + inner)
        return header + "." + claims + "." + Base64URL.encode(mac)
    }
}
