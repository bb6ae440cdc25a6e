import Foundation
import Testing
import TidingsCrypto
import TidingsHTTP
import TidingsModel
import TidingsStore
import TidingsTesting

@testable import TidingsServer

/// Who may call what: 401 for bad credentials, 403 for missing rights, and no app sees another's data.
@Suite struct AuthTests {
    static let protectedRoutes: [(String, String)] = [
        ("PUT", "/v1/installations/i1"), ("GET", "/v1/installations/i1"),
        ("DELETE", "/v1/installations/i1/tokens/apns"),
        ("GET", "/v1/installations"), ("GET", "/v1/users/u1/tags"), ("PUT", "/v1/users/u1/tags"),
        ("POST", "/v1/users/u1/tags"), ("DELETE", "/v1/users/u1/tags"), ("DELETE", "/v1/users/u1/tags/vip"),
        ("POST", "/v1/events"), ("GET", "/v1/events"), ("GET", "/v1/campaigns/c1/stats"),
        ("GET", "/v1/messages/m1/stats"),
    ]

    @Test(arguments: protectedRoutes.map { "\($0.0) \($0.1)" })
    func everyRouteRefusesMissingGarbageUnknownAndRevokedKeys(_ route: String) async throws {
        let parts = route.split(separator: " ").map(String.init)
        let harness = try APIHarness()
        let missing = try await harness.call(parts[0], parts[1], json: [:])
        #expect(missing.status == 401)
        #expect(missing.errorCode == "unauthorized")

        let garbage = try await harness.call(parts[0], parts[1], key: "not-a-key", json: [:])
        #expect(garbage.status == 401)
        #expect(garbage.errorCode == "invalid_key")

        let unknown = try await harness.call(
            parts[0], parts[1], key: "tdg_srv_" + String(repeating: "A", count: 43), json: [:])
        #expect(unknown.status == 401)
        #expect(unknown.errorCode == "invalid_key")

        let revokedKey = try harness.issue("app_main", .server)
        let record = try #require(try harness.store.key(hash: SHA256Digest.hash(revokedKey)))
        try harness.store.revokeKey(id: record.id, at: harness.now)
        let revoked = try await harness.call(parts[0], parts[1], key: revokedKey, json: [:])
        #expect(revoked.status == 401)
        #expect(revoked.errorCode == "revoked_key")
        #expect(harness.metrics.counts.withLock { $0.authFailures } == 4)
    }

    @Test func aBearerSchemeIsRequired() async throws {
        let harness = try APIHarness()
        var request = HTTPRequest(method: "GET", path: "/v1/events")
        request.headers["Authorization"] = "Basic \(harness.serverKey)"
        let error = await #expect(throws: HTTPError.self) { try await harness.api.router.handler(request) }
        #expect(error?.status == 401)
    }

    @Test(
        arguments: [
            ("Bearer k1", "k1"), ("bearer k1", "k1"), ("BEARER k1", "k1"), ("  Bearer   k1  ", "k1"),
            ("Bearer", nil), ("Bearer ", nil), ("Bearerk1", nil), ("Bearer k1 k2", nil), ("Beare k1", nil),
            ("Bearer\tk1", nil), ("Basic k1", nil), ("", nil), ("Bearér k1", nil), ("bEARER ключ", "ключ"),
        ] as [(String, String?)])
    func theBearerCredentialIsTheSecondOfTwoSpaceSeparatedWords(_ header: String, _ credential: String?) {
        #expect(APIService.bearerCredential(header) == credential)
    }

    @Test func aKeyWithAnotherKindsPrefixIsRefused() async throws {
        let harness = try APIHarness()
        // The app key's secret under the server prefix hashes differently, so it is simply unknown.
        let forged = "tdg_srv_" + harness.appKey.dropFirst(8)
        let reply = try await harness.call("GET", "/v1/events", key: String(forged))
        #expect(reply.status == 401)
    }

    @Test(arguments: [
        ("GET", "/v1/events"), ("GET", "/v1/installations"), ("GET", "/v1/campaigns/c1/stats"),
        ("GET", "/v1/messages/m1/stats"),
    ])
    func appKeysCannotRead(_ method: String, _ path: String) async throws {
        let harness = try APIHarness()
        let reply = try await harness.call(method, path, key: harness.appKey)
        #expect(reply.status == 403)
        #expect(reply.errorCode == "forbidden")
        #expect(reply.errorMessage.contains("server key"))
    }

    @Test func aServerKeyOfAnotherAppSeesNothingOfThisApp() async throws {
        let harness = try APIHarness()
        try await harness.register("inst-1", ["apns_token": .string(APIHarness.token(1)), "user_id": "u1"])
        let posted = try await harness.postEvents(json: ["events": [harness.event("delivery")]])
        #expect(posted.json["receipts"]?[0]?["status"] == "accepted")
        _ = try await harness.call("PUT", "/v1/users/u1/tags", key: harness.serverKey, json: ["tags": ["vip"]])

        let key = harness.otherServerKey
        #expect(try await harness.call("GET", "/v1/installations/inst-1", key: key).status == 404)
        #expect(try await harness.call("GET", "/v1/installations", key: key).json["installations"] == [])
        #expect(try await harness.call("GET", "/v1/events", key: key).json["events"] == [])
        #expect(try await harness.call("GET", "/v1/users/u1/tags", key: key).json["tags"] == [])
        #expect(try await harness.call("GET", "/v1/campaigns/c1/stats", key: key).json["delivered"] == 0)
        #expect(try await harness.call("DELETE", "/v1/installations/inst-1/tokens/apns", key: key).status == 404)
        let stillThere = try await harness.call("GET", "/v1/installations/inst-1", key: harness.serverKey)
        #expect(stillThere.json["apns_token"] == .string(APIHarness.token(1)))
    }

    @Test func anotherAppsKeyCannotPostEventsIntoThisApp() async throws {
        let harness = try APIHarness()
        try await harness.register("inst-1")
        try await harness.register("other-1", key: harness.otherAppKey)
        // This app's installation is unknown to the other app's key, its secret notwithstanding.
        let borrowed = try await harness.postEvents(
            json: ["events": [harness.event("open")]], as: "inst-1", key: harness.otherAppKey)
        #expect(borrowed.status == 403)
        #expect(borrowed.errorCode == "installation_unknown")
        let reply = try await harness.postEvents(
            json: ["events": [harness.event("open", installation: "other-1")]], as: "other-1", key: harness.otherAppKey)
        #expect(reply.json["receipts"]?[0]?["status"] == "accepted")
        let mine = try await harness.call("GET", "/v1/events", key: harness.serverKey)
        #expect(mine.json["events"]?.arrayValue?.isEmpty == true)
        let theirs = try await harness.call("GET", "/v1/events", key: harness.otherServerKey)
        #expect(theirs.json["events"]?.arrayValue?.count == 1)
    }

    @Test func aRevocationTheStoreAnnouncesBitesAtOnceDespiteTheKeyCache() async throws {
        let harness = try APIHarness { $0.keyCacheSeconds = 60 }
        #expect(try await harness.call("GET", "/v1/events", key: harness.serverKey).status == 200)
        let record = try #require(try harness.store.key(hash: SHA256Digest.hash(harness.serverKey)))
        try harness.store.revokeKey(id: record.id, at: harness.now)
        #expect(try await harness.call("GET", "/v1/events", key: harness.serverKey).errorCode == "revoked_key")
        // Only that key was dropped.
        #expect(try await harness.call("GET", "/v1/events", key: harness.otherServerKey).status == 200)
    }

    @Test func aRevocationTheStoreDoesNotAnnounceBitesWhenTheCacheExpires() async throws {
        // Another process (say `tidingsd keys revoke` on the same SQLite file) revokes the key: this process's
        // store never hears of it, so the cache's lifetime is what bounds it.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-auth-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore(directory: directory)
        let clock = ManualClock(now: APIHarness.startDate)
        var configuration = TidingsAPI.Configuration()
        configuration.keyCacheSeconds = 2
        let api = TidingsAPI(store: store, configuration: configuration, clock: clock, logger: .disabled())
        try store.createApp(AppRecord(id: "app_main", name: "main", bundleID: "com.example.main", createdAt: 0))
        let issued = APIKeySecret.issue(appID: "app_main", kind: .server, now: 0)
        try store.createKey(issued.record)
        func status() async throws -> Int {
            var request = HTTPRequest(method: "GET", path: "/v1/events")
            request.headers["Authorization"] = "Bearer \(issued.secret)"
            do { return try await api.router.handler(request).status } catch let error as HTTPError {
                return error.status
            }
        }
        #expect(try await status() == 200)
        let otherProcess = try SQLiteStore(directory: directory)
        try otherProcess.revokeKey(id: issued.record.id, at: 1)
        #expect(try await status() == 200)
        clock.advance(by: .seconds(3))
        #expect(try await status() == 401)
    }

    @Test func issuedKeysHaveTheirPrefixAndLengthAndAreStoredOnlyAsADigest() throws {
        let issued = APIKeySecret.issue(appID: "app", kind: .app, now: 0)
        #expect(issued.secret.hasPrefix("tdg_app_"))
        #expect(issued.secret.count == 51)
        #expect(APIKeySecret.kind(of: issued.secret) == .app)
        #expect(issued.record.hash == SHA256Digest.hash(issued.secret))
        #expect(!issued.record.hint.contains(issued.secret))
        #expect(APIKeySecret.issue(appID: "app", kind: .server, now: 0).secret != issued.secret)
        #expect(APIKeySecret.kind(of: "tdg_app_short") == nil)
    }

    @Test func sha256MatchesTheStandardVectors() {
        #expect(
            SHA256Digest.hex(SHA256Digest.hash("abc"))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            SHA256Digest.hex(SHA256Digest.hash(""))
                == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256Digest.constantTimeEquals([1, 2, 3], [1, 2, 3]))
        #expect(!SHA256Digest.constantTimeEquals([1, 2, 3], [1, 2, 4]))
        #expect(!SHA256Digest.constantTimeEquals([1, 2, 3], [1, 2]))
    }
}
