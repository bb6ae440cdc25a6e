import Foundation
import Testing
import TidingsModel
import TidingsServer
import TidingsStore

/// An installation belongs to the app instance that created it: the public app key alone cannot write to,
/// read, or speak for someone else's installation.
@Suite struct InstallationOwnershipTests {
    @Test func creatingAnInstallationIssuesItsSecretOnce() async throws {
        let harness = try APIHarness()
        let created = try await harness.register("inst-1", ["user_id": "alice"])
        #expect(created.status == 201)
        let secret = try #require(created.json["installation_secret"]?.stringValue)
        #expect(secret.hasPrefix("tdg_ins_") && secret.utf8.count == 8 + 43)
        let again = try await harness.register("inst-1", ["locale": "ja_JP"])
        #expect(again.status == 200)
        #expect(again.json["installation_secret"] == nil)
        let read = try await harness.call("GET", "/v1/installations/inst-1", key: harness.appKey)
        #expect(read.status == 200 && read.json["installation_secret"] == nil)
        // The store keeps only its digest.
        let stored = try #require(try harness.store.installation(appID: harness.appID, installationID: "inst-1"))
        #expect(stored.secretDigest?.count == 32)
        #expect(!String(decoding: stored.secretDigest ?? [], as: UTF8.self).contains(secret))
    }

    @Test func anotherInstanceWithTheAppKeyCannotTakeOverAnInstallation() async throws {
        let harness = try APIHarness()
        try await harness.register("victim", ["user_id": "alice", "apns_token": .string(APIHarness.token(1))])
        // The attacker knows the installation id and has the app key, but not the secret.
        let hijack = try await harness.call(
            "PUT", "/v1/installations/victim", key: harness.appKey,
            json: ["user_id": "alice", "apns_token": .string(APIHarness.token(66))], presentSecret: false)
        #expect(hijack.status == 403)
        #expect(hijack.errorCode == "installation_secret_required")
        let guessed = try await harness.call(
            "PUT", "/v1/installations/victim", key: harness.appKey, json: ["user_id": "mallory"],
            headers: [("X-Tidings-Installation-Secret", "tdg_ins_" + String(repeating: "A", count: 43))])
        #expect(guessed.errorCode == "installation_secret_invalid")
        let read = try await harness.call(
            "GET", "/v1/installations/victim", key: harness.appKey, presentSecret: false)
        #expect(read.status == 403)
        let delete = try await harness.call(
            "DELETE", "/v1/installations/victim/tokens/apns", key: harness.appKey, presentSecret: false)
        #expect(delete.status == 403)
        // Nothing changed.
        let stored = try #require(try harness.store.installation(appID: harness.appID, installationID: "victim"))
        #expect(stored.apnsToken == APIHarness.token(1) && stored.userID == "alice")
        // The owner still writes, and a server key is not limited by secrets.
        #expect(try await harness.register("victim", ["locale": "en_US"]).status == 200)
        let server = try await harness.call(
            "PUT", "/v1/installations/victim", key: harness.serverKey, json: ["locale": "fr_FR"], presentSecret: false)
        #expect(server.status == 200)
    }

    @Test func theUserHijackOfTheIssueIsRefused() async throws {
        // Someone registers their own installation as alice to receive her pushes and read her tags.
        let harness = try APIHarness { _ in }
        try harness.store.updateApp(
            AppRecord(
                id: harness.appID, name: "main", bundleID: "com.example.main", createdAt: 0,
                identityVerification: .required))
        let attacker = try await harness.call(
            "PUT", "/v1/installations/attacker", key: harness.appKey, json: ["user_id": "alice"])
        #expect(attacker.status == 401)
        #expect(attacker.errorCode == "identity_token_required")
        #expect(try harness.store.installation(appID: harness.appID, installationID: "attacker") == nil)
        let tags = try await harness.call(
            "GET", "/v1/users/alice/tags", key: harness.appKey,
            headers: [(TidingsAPI.installationHeader, "attacker")])
        #expect(tags.status == 403)
    }

    @Test func anInstallationMadeBeforeSecretsClaimsOneOnItsNextWrite() async throws {
        let harness = try APIHarness()
        // As a store written before secrets existed leaves it: no digest.
        var legacy = InstallationUpdate()
        legacy.apnsToken = .set(APIHarness.token(3))
        _ = try harness.store.upsertInstallation(
            appID: harness.appID, installationID: "legacy", update: legacy, now: harness.now)
        let claimed = try await harness.register("legacy", ["locale": "ja_JP"])
        #expect(claimed.status == 200)
        #expect(claimed.json["installation_secret"]?.stringValue?.hasPrefix("tdg_ins_") == true)
        // From then on it is owned.
        let other = try await harness.call(
            "PUT", "/v1/installations/legacy", key: harness.appKey, json: [:], presentSecret: false)
        #expect(other.errorCode == "installation_secret_required")
    }

    @Test func userTagsThroughAnAppKeyNeedTheCallingInstallationsSecret() async throws {
        let harness = try APIHarness()
        try await harness.register("inst-1", ["user_id": "alice"])
        let asAlice = [(TidingsAPI.installationHeader, "inst-1")]
        let owned = try await harness.call(
            "PUT", "/v1/users/alice/tags", key: harness.appKey, json: ["tags": ["vip"]], headers: asAlice)
        #expect(owned.status == 200)
        let stolen = try await harness.call(
            "PUT", "/v1/users/alice/tags", key: harness.appKey, json: ["tags": ["pwned"]], headers: asAlice,
            presentSecret: false)
        #expect(stolen.status == 403)
        #expect(stolen.errorCode == "installation_secret_required")
        #expect(try harness.store.tags(appID: harness.appID, userID: "alice") == ["vip"])
    }
}
