import Foundation
import Testing
import TidingsCrypto
import TidingsHTTP
import TidingsModel
import TidingsStore
import TidingsStoreTesting
import TidingsTesting

@testable import TidingsServer

/// The audit log records every state-changing call by every kind of credential, at one place (the router's
/// wrapper), so a route added later is audited by default; and no entry ever holds a secret.
@Suite struct AuditTrailTests {
    static let password = "AUDIT-operator-password-123"
    static let webhookSecret = "whsec_AUDITWEBHOOKSECRET456"

    struct Credentials {
        var appKey: String
        var serverKey: String
        var adminKey: String
        var keyIDs: [AuditEntry.Credential: String]
    }

    func harness(auditsAppKeys: Bool = true) throws -> (APIHarness, Credentials) {
        let harness = try APIHarness { $0.auditsAppKeyWrites = auditsAppKeys }
        let adminKey = try AppAdministration(store: harness.store).createAdminKey().secret
        try OperatorAdministration(store: harness.store, clock: harness.clock).create(
            name: "op-admin", role: .admin, password: Self.password)
        func id(_ secret: String) throws -> String {
            try #require(try harness.store.key(hash: SHA256Digest.hash(secret))).id
        }
        let credentials = Credentials(
            appKey: harness.appKey, serverKey: harness.serverKey, adminKey: adminKey,
            keyIDs: [
                .appKey: try id(harness.appKey), .serverKey: try id(harness.serverKey), .adminKey: try id(adminKey),
            ])
        return (harness, credentials)
    }

    /// A request by `credential`, its body full of secrets that must not reach the log.
    func request(
        _ harness: APIHarness, _ credentials: Credentials, _ method: String, _ path: String,
        as credential: AuditEntry.Credential
    ) throws -> HTTPRequest {
        let body = #"{"secret":"\#(Self.webhookSecret)","password":"\#(Self.password)","name":"x"}"#
        var request = HTTPRequest(method: method, path: path, body: Data(body.utf8), remoteAddress: "10.0.0.7")
        switch credential {
        case .appKey: request.headers["Authorization"] = "Bearer \(credentials.appKey)"
        case .serverKey: request.headers["Authorization"] = "Bearer \(credentials.serverKey)"
        case .adminKey: request.headers["Authorization"] = "Bearer \(credentials.adminKey)"
        case .server: break
        case .operator:
            let id = "session-" + UUID().uuidString
            try harness.store.createSession(
                OperatorSession(
                    idDigest: SHA256Digest.hash(id), operatorName: "op-admin", csrfToken: "csrf",
                    createdAt: harness.now, lastSeenAt: harness.now))
            request.headers["Host"] = "console.test"
            request.headers["Cookie"] = "tidings_session=\(id)"
            request.headers["X-CSRF-Token"] = "csrf"
            request.headers["X-Tidings-App"] = "app_main"
        }
        return request
    }

    static func isStateChanging(_ route: HTTPRoute) -> Bool {
        route.method != "GET" && route.method != "HEAD"
            && !APIService.readOnlyPosts.union(APIService.signInPaths).contains(route.pattern)
    }

    @Test func everyStateChangingRouteIsAuditedForEveryCredentialAndNoEntryHoldsASecret() async throws {
        let (harness, credentials) = try harness()
        let routes = harness.api.router.routes.filter(Self.isStateChanging)
        #expect(routes.count > 30, "the walk covers the API")
        var missing: [String] = []
        var calls = 0
        for route in routes {
            // tidingsd's own entries (a split test's winner) come from no request.
            for credential in AuditEntry.Credential.allCases where credential != .server {
                let before = try harness.store.auditEntries(beforeSequence: nil, limit: 1).first?.sequence ?? 0
                let path = RoleMatrixTests.path(route.pattern)
                let request = try request(harness, credentials, route.method, path, as: credential)
                let status: Int
                do {
                    status = try await harness.api.router.handler(request).status
                } catch let error as HTTPError {
                    status = error.status
                } catch {
                    status = 500
                }
                calls += 1
                let entries = try harness.store.auditEntries(beforeSequence: nil, limit: 5).filter {
                    $0.sequence > before
                }
                let name = "\(route.method) \(route.pattern) as \(credential.rawValue)"
                guard entries.count == 1, let entry = entries.first else {
                    missing.append("\(name): \(entries.count) entries")
                    continue
                }
                // An erasure's entry names the user's pseudonym, never the erased id (docs/security.md).
                let target =
                    "\(route.method) \(route.pattern)" == "DELETE /v1/users/{user_id}"
                    ? (entry.target.hasPrefix("/v1/users/erased") ? entry.target : "not the pseudonym") : path
                if entry.action != "\(route.method) \(route.pattern)" || entry.target != target
                    || entry.credential != credential || entry.status != status || entry.address != "10.0.0.7"
                    || entry.keyID != credentials.keyIDs[credential]
                    || (credential == .operator) != (entry.operatorName == "op-admin")
                {
                    missing.append("\(name): \(entry)")
                }
            }
        }
        #expect(missing == [])

        let all = try harness.store.auditEntries(beforeSequence: nil, limit: 100_000)
        #expect(all.count == calls)
        let secrets = [
            credentials.appKey, credentials.serverKey, credentials.adminKey, Self.password, Self.webhookSecret,
            "session-",
        ]
        for entry in all {
            let text = "\(entry)"
            for secret in secrets { #expect(!text.contains(secret), "\(entry.action)") }
        }
    }

    @Test func readsUnknownKeysAndAppKeysByDefaultAreNotAudited() async throws {
        let (harness, credentials) = try harness(auditsAppKeys: false)
        _ = try await harness.call("GET", "/v1/installations", key: credentials.serverKey)
        _ = try await harness.call("POST", "/v1/lint", key: credentials.serverKey, json: ["aps": [:]])
        _ = try await harness.call("POST", "/v1/messages", key: "tdg_srv_" + String(repeating: "A", count: 43))
        _ = try await harness.call("POST", "/v1/messages")
        try await harness.register("i1")
        #expect(try harness.store.auditEntries(beforeSequence: nil, limit: 10) == [])

        // A refused call by a known key is recorded with its outcome.
        let reply = try await harness.call("POST", "/v1/admin/apps", key: credentials.serverKey, json: [:])
        #expect(reply.status == 403)
        let entry = try #require(try harness.store.auditEntries(beforeSequence: nil, limit: 10).first)
        #expect(entry.credential == .serverKey && entry.status == 403 && entry.appID == "app_main")
        #expect(entry.keyID == credentials.keyIDs[.serverKey])
    }

    @Test func theAuditRouteNamesTheCredentialAndKey() async throws {
        let (harness, credentials) = try harness()
        _ = try await harness.call(
            "DELETE", "/v1/messages/msg_x", key: credentials.serverKey)
        let reply = try await harness.call("GET", "/v1/audit", key: credentials.adminKey)
        #expect(reply.status == 200)
        let entry = try #require(reply.json["entries"]?.arrayValue?.first)
        #expect(entry["credential"] == "server_key")
        #expect(entry["key_id"] == .string(credentials.keyIDs[.serverKey]!))
        #expect(entry["operator"] == .null)
        #expect(entry["action"] == "DELETE /v1/messages/{message_id}")
    }

    @Test(arguments: StoreBackend.allCases)
    func entriesPastTheRetentionWindowAreRemovedByTheScheduledJob(_ backend: StoreBackend) throws {
        let store = try backend.makeStore()
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000))
        let now = clock.now.millisecondsSince1970
        for (age, name) in [(400, "old"), (366, "older than a year"), (364, "recent"), (0, "today")] {
            try store.appendAudit(
                AuditEntry(
                    at: now - Int64(age) * 86_400_000, operatorName: "", action: name, target: "/", appID: nil,
                    status: 200, credential: .adminKey, keyID: "adm_1"))
        }
        let job = ScheduledWork.Job.auditRetention(store: store, days: 365, clock: clock, logger: .disabled())
        try job.run()
        let kept = try store.auditEntries(beforeSequence: nil, limit: 10)
        #expect(kept.map(\.action) == ["today", "recent"])
        #expect(kept.allSatisfy { $0.credential == .adminKey && $0.keyID == "adm_1" })
    }

    @Test func retentionAndAppKeyAuditingAreConfigured() throws {
        guard
            case .serve(let configuration) = try ServerConfiguration.resolve(
                arguments: ["--audit-retention-days", "30", "--audit-app-keys", "on"], environment: [:],
                readFile: { _ in Data() })
        else { throw CancellationError() }
        #expect(configuration.auditRetentionDays == 30 && configuration.auditsAppKeyWrites)
        #expect(ServerConfiguration().auditRetentionDays == 365 && !ServerConfiguration().auditsAppKeyWrites)
        #expect(throws: ServerConfigurationError.self) {
            try ServerConfiguration.resolve(arguments: ["--audit-retention-days", "0"], environment: [:]) { _ in Data()
            }
        }
    }
}
