import Foundation
import Testing
import TidingsCrypto
import TidingsHTTP
import TidingsModel
import TidingsServer
import TidingsStore
import TidingsStoreTesting
import TidingsTesting

/// `Idempotency-Key` on the create routes: a retry is answered with the first answer and done once, per
/// credential, for 24 hours, on every instance sharing the store.
@Suite struct IdempotencyTests {
    static let message: JSONValue = ["target": ["all": true], "content": ["title": "Sale", "body": "Half price"]]

    /// `value` as the same bytes every time, as a client retrying sends them.
    static func bytes(_ value: JSONValue) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try encoder.encode(value)
    }

    static func fixture(_ backend: StoreBackend = .sqlite) async throws -> MessageFixture {
        let fixture = try MessageFixture(backend: backend)
        try await fixture.register("i1", seed: 1)
        try await fixture.register("i2", seed: 2)
        return fixture
    }

    static func send(
        _ harness: APIHarness, _ body: JSONValue = message, key: String? = nil, idempotencyKey: String?
    ) async throws -> APIHarness.Reply {
        try await harness.call(
            "POST", "/v1/messages", key: key ?? harness.serverKey, body: try Self.bytes(body),
            headers: idempotencyKey.map { [("Idempotency-Key", $0)] } ?? [])
    }

    static func messageCount(_ harness: APIHarness) throws -> Int {
        try harness.store.recentMessages(appID: "app_main", createdBefore: nil, limit: 100).count
    }

    @Test(arguments: StoreBackend.allCases)
    func aRetriedSendIsAnsweredAgainWithoutSendingTwice(_ backend: StoreBackend) async throws {
        let fixture = try await Self.fixture(backend)
        let first = try await Self.send(fixture.harness, idempotencyKey: "order-1234")
        #expect(first.status < 300, "\(first.json)")
        #expect(first.response.headers["Idempotent-Replayed"] == nil)
        let messageID = try #require(first.json["message_id"]?.stringValue)
        let retry = try await Self.send(fixture.harness, idempotencyKey: "order-1234")
        #expect(retry.status == first.status)
        #expect(retry.json == first.json)
        #expect(retry.response.headers["Idempotent-Replayed"] == "true")
        #expect(retry.response.headers["Content-Type"] == "application/json")
        #expect(try Self.messageCount(fixture.harness) == 1)
        #expect(try fixture.store.messageCounts(messageID: messageID).targets == 2)
        // Without the header, every request sends.
        _ = try await Self.send(fixture.harness, idempotencyKey: nil)
        _ = try await Self.send(fixture.harness, idempotencyKey: nil)
        #expect(try Self.messageCount(fixture.harness) == 3)
    }

    @Test func theSameKeyWithAnotherBodyIs422() async throws {
        let fixture = try await Self.fixture()
        #expect(try await Self.send(fixture.harness, idempotencyKey: "k1").status < 300)
        let other: JSONValue = ["target": ["all": true], "content": ["title": "Sale", "body": "A third off"]]
        let reused = try await Self.send(fixture.harness, other, idempotencyKey: "k1")
        #expect(reused.status == 422)
        #expect(reused.errorCode == "idempotency_key_reused")
        #expect(reused.errorMessage.contains("another request"))
        #expect(try Self.messageCount(fixture.harness) == 1)
    }

    @Test func aKeyWhoseRequestIsStillRunningIs409UntilItsLockPasses() async throws {
        let fixture = try await Self.fixture()
        let harness = fixture.harness
        let keyRecord = try #require(try harness.store.key(hash: SHA256Digest.hash(harness.serverKey)))
        let body = try Self.bytes(Self.message)
        let fingerprint = SHA256Digest.hash(Data("POST /v1/messages\n".utf8) + body)
        // Another instance took the key and is sending.
        let claim = try harness.store.claimIdempotencyKey(
            IdempotencyRecord(
                scope: "app_main\n\(keyRecord.id)", key: "k1", fingerprint: fingerprint, createdAt: harness.now,
                expiresAt: harness.now + 86_400_000, lockedUntil: harness.now + 60_000), now: harness.now)
        #expect(claim == .claimed)
        let busy = try await Self.send(harness, idempotencyKey: "k1")
        #expect(busy.status == 409)
        #expect(busy.errorCode == "idempotency_key_in_flight")
        #expect(try Self.messageCount(harness) == 0)
        // Its instance died: past the lock the retry runs.
        harness.clock.advance(by: .seconds(61))
        #expect(try await Self.send(harness, idempotencyKey: "k1").status < 300)
        #expect(try Self.messageCount(harness) == 1)
    }

    @Test func keysBelongToOneCredentialAndLast24Hours() async throws {
        let fixture = try await Self.fixture()
        let harness = fixture.harness
        let first = try await Self.send(harness, idempotencyKey: "k1")
        let secondKey = try harness.issue("app_main", .server)
        let otherCredential = try await Self.send(harness, key: secondKey, idempotencyKey: "k1")
        #expect(otherCredential.response.headers["Idempotent-Replayed"] == nil)
        #expect(otherCredential.json["message_id"] != first.json["message_id"])
        #expect(try Self.messageCount(harness) == 2)
        harness.clock.advance(by: .seconds(86_399))
        #expect(try await Self.send(harness, idempotencyKey: "k1").response.headers["Idempotent-Replayed"] == "true")
        harness.clock.advance(by: .seconds(1))
        let later = try await Self.send(harness, idempotencyKey: "k1")
        #expect(later.response.headers["Idempotent-Replayed"] == nil)
        #expect(try Self.messageCount(harness) == 3)
    }

    @Test func aFailedRequestGivesItsKeyBack() async throws {
        let fixture = try await Self.fixture()
        let invalid: JSONValue = ["target": ["all": true]]
        #expect(try await Self.send(fixture.harness, invalid, idempotencyKey: "k1").status == 400)
        #expect(try await Self.send(fixture.harness, invalid, idempotencyKey: "k1").status == 400)
        let corrected = try await Self.send(fixture.harness, idempotencyKey: "k1")
        #expect(corrected.status < 300)
        #expect(corrected.response.headers["Idempotent-Replayed"] == nil)
        // A refused credential neither takes nor reads a key.
        #expect(try await Self.send(fixture.harness, key: "tdg_srv_nope", idempotencyKey: "k1").status == 401)
        #expect(try await Self.send(fixture.harness, key: fixture.harness.appKey, idempotencyKey: "k1").status == 403)
    }

    @Test(arguments: ["", String(repeating: "k", count: 256), "with space", "caf\u{e9}"])
    func aMalformedKeyIs400(_ key: String) async throws {
        let fixture = try await Self.fixture()
        let reply = try await Self.send(fixture.harness, idempotencyKey: key)
        #expect(reply.status == 400)
        #expect(reply.errorCode == "invalid_idempotency_key")
        #expect(try Self.messageCount(fixture.harness) == 0)
    }

    @Test func aRetryToAnotherInstanceSharingPostgreSQLIsAnsweredTheSame() async throws {
        let fixture = try await Self.fixture(.postgres)
        var configuration = TidingsAPI.Configuration()
        configuration.keyCacheSeconds = 0
        let other = TidingsAPI(
            store: fixture.store, configuration: configuration, clock: fixture.clock, logger: .disabled(),
            provider: fixture.provider)
        let first = try await Self.send(fixture.harness, idempotencyKey: "k-shared")
        var request = HTTPRequest(method: "POST", path: "/v1/messages", body: try Self.bytes(Self.message))
        request.headers["Authorization"] = "Bearer \(fixture.harness.serverKey)"
        request.headers["Idempotency-Key"] = "k-shared"
        let retry = try await other.router.handler(request)
        #expect(retry.status == first.status)
        #expect(retry.headers["Idempotent-Replayed"] == "true")
        #expect(try JSONValue.parse(retry.body)["message_id"] == first.json["message_id"])
        #expect(try Self.messageCount(fixture.harness) == 1)
    }

    @Test func otherCreateRoutesReplayAndNeverKeepASecret() async throws {
        let harness = try APIHarness()
        let admin = try AppAdministration(store: harness.store).createAdminKey().secret
        let app: JSONValue = ["name": "third", "bundle_id": "com.example.third"]
        let created = try await harness.call(
            "POST", "/v1/admin/apps", key: admin, body: try Self.bytes(app), headers: [("Idempotency-Key", "app-1")])
        #expect(created.status == 201)
        let again = try await harness.call(
            "POST", "/v1/admin/apps", key: admin, body: try Self.bytes(app), headers: [("Idempotency-Key", "app-1")])
        #expect(again.json == created.json)
        #expect(try harness.store.apps().count == 3)

        let appID = try #require(created.json["app_id"]?.stringValue)
        let keysBefore = try harness.store.keys(appID: appID).count
        let keyBody: JSONValue = ["kind": "server"]
        let key = try await harness.call(
            "POST", "/v1/admin/apps/\(appID)/keys", key: admin, body: try Self.bytes(keyBody),
            headers: [("Idempotency-Key", "key-1")])
        #expect(key.status == 201)
        let secret = try #require(key.json["secret"]?.stringValue)
        let keyAgain = try await harness.call(
            "POST", "/v1/admin/apps/\(appID)/keys", key: admin, body: try Self.bytes(keyBody),
            headers: [("Idempotency-Key", "key-1")])
        #expect(keyAgain.status == 201)
        #expect(keyAgain.json["key"] == key.json["key"])
        #expect(keyAgain.json["secret"] == nil, "a key's secret is shown once, and never kept")
        #expect(try harness.store.keys(appID: appID).count == keysBefore + 1)
        #expect(!secret.isEmpty)
    }
}
