import Foundation
import Testing
import TidingsHTTP
import TidingsModel
import TidingsServer
import TidingsStore

/// Rate limits in authentication: a bucket per key (the app's `requests_per_second`, else the kind's
/// default) and a bucket of failed authentications per client address; 429 with `Retry-After`.
@Suite struct RateLimitTests {
    /// What a request got back, errors included with their headers (the harness drops them).
    struct Outcome {
        var status: Int
        var code: String?
        var message: String
        var headers: HTTPHeaders
    }

    /// Sends one request from `remoteAddress` straight to the router.
    static func send(
        _ harness: APIHarness, _ method: String, _ path: String, key: String?, json: JSONValue? = nil,
        headers: [(String, String)] = [], from remoteAddress: String? = "192.0.2.1"
    ) async throws -> Outcome {
        var request = HTTPRequest(method: method, path: path, remoteAddress: remoteAddress)
        if let key { request.headers["Authorization"] = "Bearer \(key)" }
        for (name, value) in headers { request.headers[name] = value }
        if let json { request.body = try JSONEncoder().encode(json) }
        do {
            let response = try await harness.api.router.handler(request)
            return Outcome(status: response.status, code: nil, message: "", headers: response.headers)
        } catch let error as HTTPError {
            return Outcome(status: error.status, code: error.code, message: error.message, headers: error.headers)
        }
    }

    static func limits(
        app: RateLimit = RateLimit(burst: 1000, perSecond: 1000),
        server: RateLimit = RateLimit(burst: 1000, perSecond: 1000),
        admin: RateLimit = RateLimit(burst: 1000, perSecond: 1000),
        failures: RateLimit = RateLimit(burst: 1000, perSecond: 1000)
    ) -> (inout TidingsAPI.Configuration) -> Void {
        { configuration in
            configuration.keyRateLimits.app = app
            configuration.keyRateLimits.server = server
            configuration.keyRateLimits.admin = admin
            configuration.failedAuthenticationLimit = failures
        }
    }

    static let small = RateLimit(burst: 3, perSecond: 1)
    /// What every request of the per-kind test sends: an empty event batch (the other routes ignore it).
    static let body: JSONValue = ["events": []]

    /// The headers of device `installationID`, registered before with a key of its own (so the registration
    /// spends none of the tested key's burst): its id and its secret.
    static func device(_ harness: APIHarness, _ installationID: String) async throws -> [(String, String)] {
        try await harness.register(installationID, key: try harness.issue("app_main", .app))
        let secret = try #require(harness.secrets.withLock { $0[installationID] })
        return APIHarness.device(installationID) + [("X-Tidings-Installation-Secret", secret)]
    }

    // MARK: Per key

    /// A request each kind of key may make: (kind, method, path).
    static let requests: [(APIKeyKind, String, String)] = [
        (.app, "POST", "/v1/events"), (.server, "GET", "/v1/installations"),
        (.admin, "GET", "/v1/admin/apps"),
    ]

    @Test(arguments: requests)
    func theRequestPastAKeysBurstIs429WithRetryAfterAndTheLimitNamed(
        _ kind: APIKeyKind, _ method: String, _ path: String
    ) async throws {
        var configure: (inout TidingsAPI.Configuration) -> Void
        switch kind {
        case .app: configure = Self.limits(app: Self.small)
        case .server: configure = Self.limits(server: Self.small)
        case .admin: configure = Self.limits(admin: Self.small)
        }
        let harness = try APIHarness(configure: configure)
        let key: String
        switch kind {
        case .app: key = harness.appKey
        case .server: key = harness.serverKey
        case .admin: key = try AppAdministration(store: harness.store).createAdminKey().secret
        }
        // Server keys of another app, and one more key of the same kind: their own buckets.
        let sameKind =
            kind == .admin
            ? try AppAdministration(store: harness.store).createAdminKey().secret : try harness.issue("app_main", kind)

        // App keys post events as a device: its id and secret.
        let headers = kind == .app ? try await Self.device(harness, "inst-1") : []
        for index in 1...3 {
            let allowed = try await Self.send(harness, method, path, key: key, json: Self.body, headers: headers)
            #expect(allowed.status < 300, "request \(index): \(allowed.code ?? "")")
        }
        let refused = try await Self.send(harness, method, path, key: key, json: Self.body, headers: headers)
        #expect(refused.status == 429)
        #expect(refused.code == "rate_limited")
        #expect(refused.headers["Retry-After"] == "1")
        #expect(refused.message.contains("1 per second (burst 3)"), "\(refused.message)")

        #expect(
            try await Self.send(harness, method, path, key: sameKind, json: Self.body, headers: headers).status < 300)
        #expect(try await Self.send(harness, "GET", "/v1/installations", key: harness.otherServerKey).status == 200)

        harness.clock.advance(by: .seconds(1))
        #expect(try await Self.send(harness, method, path, key: key, json: Self.body, headers: headers).status < 300)
        #expect(try await Self.send(harness, method, path, key: key, json: Self.body, headers: headers).status == 429)
        harness.clock.advance(by: .seconds(3))
        for _ in 1...3 {
            #expect(
                try await Self.send(harness, method, path, key: key, json: Self.body, headers: headers).status < 300)
        }
        #expect(try await Self.send(harness, method, path, key: key, json: Self.body, headers: headers).status == 429)
    }

    @Test func retryAfterSaysHowLongUntilTheNextToken() async throws {
        let harness = try APIHarness(configure: Self.limits(server: RateLimit(burst: 1, perSecond: 0.25)))
        #expect(try await Self.send(harness, "GET", "/v1/installations", key: harness.serverKey).status == 200)
        let refused = try await Self.send(harness, "GET", "/v1/installations", key: harness.serverKey)
        #expect(refused.headers["Retry-After"] == "4")
        #expect(refused.message.contains("0.25 per second (burst 1)"))
        harness.clock.advance(by: .seconds(3))
        let still = try await Self.send(harness, "GET", "/v1/installations", key: harness.serverKey)
        #expect(still.status == 429)
        #expect(still.headers["Retry-After"] == "1")
        harness.clock.advance(by: .seconds(1))
        #expect(try await Self.send(harness, "GET", "/v1/installations", key: harness.serverKey).status == 200)
    }

    /// (the app's requests_per_second, the kind's default burst, the requests allowed back to back)
    @Test(arguments: [(2, 100, 4), (10, 2, 20)])
    func anAppsRequestsPerSecondReplacesTheDefault(_ rate: Int, _ defaultBurst: Int, _ allowed: Int) async throws {
        let harness = try APIHarness(
            configure: Self.limits(server: RateLimit(burst: defaultBurst, perSecond: Double(defaultBurst))))
        var app = try #require(try harness.store.app(id: "app_main"))
        app.requestsPerSecond = rate
        try harness.store.updateApp(app)

        for index in 1...allowed {
            let reply = try await Self.send(harness, "GET", "/v1/installations", key: harness.serverKey)
            #expect(reply.status == 200, "request \(index)")
        }
        let refused = try await Self.send(harness, "GET", "/v1/installations", key: harness.serverKey)
        #expect(refused.status == 429)
        #expect(refused.message.contains("\(rate) per second (burst \(2 * rate))"), "\(refused.message)")
        // The other app keeps the default.
        for _ in 1...defaultBurst {
            #expect(try await Self.send(harness, "GET", "/v1/installations", key: harness.otherServerKey).status == 200)
        }
        #expect(try await Self.send(harness, "GET", "/v1/installations", key: harness.otherServerKey).status == 429)

        // Back to the default (null): the key's bucket is capped at the default's burst.
        app.requestsPerSecond = nil
        try harness.store.updateApp(app)
        harness.clock.advance(by: .seconds(60))
        for _ in 1...defaultBurst {
            #expect(try await Self.send(harness, "GET", "/v1/installations", key: harness.serverKey).status == 200)
        }
        let back = try await Self.send(harness, "GET", "/v1/installations", key: harness.serverKey)
        #expect(back.status == 429)
        #expect(back.message.contains("burst \(defaultBurst))"))
    }

    @Test func anAppsRateDoesNotApplyToAdminKeys() async throws {
        let harness = try APIHarness(configure: Self.limits(admin: RateLimit(burst: 5, perSecond: 5)))
        var app = try #require(try harness.store.app(id: "app_main"))
        app.requestsPerSecond = 1
        try harness.store.updateApp(app)
        let admin = try AppAdministration(store: harness.store).createAdminKey().secret
        for _ in 1...5 { #expect(try await Self.send(harness, "GET", "/v1/admin/apps/main", key: admin).status == 200) }
        #expect(try await Self.send(harness, "GET", "/v1/admin/apps/main", key: admin).status == 429)
    }

    // MARK: Failed authentications per address

    static let failures = RateLimit(burst: 3, perSecond: 0.1)

    static func badKey(_ failure: String, _ harness: APIHarness) throws -> String? {
        switch failure {
        case "unknown key": return "tdg_srv_" + String(repeating: "A", count: 43)
        case "no key": return nil
        case "not a Tidings key": return "hunter2"
        default:
            let issued = APIKeySecret.issue(appID: "app_main", kind: .server, now: harness.now)
            try harness.store.createKey(issued.record)
            try harness.store.revokeKey(id: issued.record.id, at: harness.now)
            return issued.secret
        }
    }

    @Test(arguments: ["unknown key", "no key", "not a Tidings key", "revoked key"])
    func repeatedFailuresFromOneAddressAreRefused429ButAValidKeyFromItIsNot(_ failure: String) async throws {
        let harness = try APIHarness(configure: Self.limits(failures: Self.failures))
        let bad = try Self.badKey(failure, harness)
        let address = "198.51.100.7"
        for attempt in 1...3 {
            let reply = try await Self.send(harness, "GET", "/v1/installations", key: bad, from: address)
            #expect(reply.status == 401, "attempt \(attempt)")
        }
        let locked = try await Self.send(harness, "GET", "/v1/installations", key: bad, from: address)
        #expect(locked.status == 429)
        #expect(locked.code == "rate_limited")
        #expect(locked.headers["Retry-After"] == "10")
        #expect(locked.message.contains("0.1 per second (burst 3)"), "\(locked.message)")
        // A valid key from the same address is served: the limit counts failures and refuses only them.
        #expect(
            try await Self.send(harness, "GET", "/v1/installations", key: harness.serverKey, from: address).status
                == 200)
        #expect(try await Self.send(harness, "GET", "/v1/installations", key: bad, from: address).status == 429)

        // Another address is not affected.
        #expect(try await Self.send(harness, "GET", "/v1/installations", key: bad, from: "198.51.100.8").status == 401)

        harness.clock.advance(by: .seconds(10))
        #expect(try await Self.send(harness, "GET", "/v1/installations", key: bad, from: address).status == 401)
        #expect(try await Self.send(harness, "GET", "/v1/installations", key: bad, from: address).status == 429)
    }

    @Test func successesAndForbiddenCallsAreNotFailedAuthentications() async throws {
        let harness = try APIHarness(configure: Self.limits(failures: Self.failures))
        let address = "203.0.113.5"
        for _ in 1...10 {
            #expect(
                try await Self.send(harness, "GET", "/v1/installations", key: harness.serverKey, from: address).status
                    == 200)
            // An app key on a server route: 403, the key itself is good.
            #expect(
                try await Self.send(harness, "GET", "/v1/installations", key: harness.appKey, from: address).status
                    == 403)
        }
        for _ in 1...3 {
            #expect(try await Self.send(harness, "GET", "/v1/installations", key: "nope", from: address).status == 401)
        }
        #expect(try await Self.send(harness, "GET", "/v1/installations", key: "nope", from: address).status == 429)
    }

    // MARK: Behind a proxy

    /// Sends from `peer` with `X-Forwarded-For: forwardedFor`.
    static func sendThroughProxy(
        _ harness: APIHarness, key: String?, peer: String, forwardedFor: String
    ) async throws -> Outcome {
        var request = HTTPRequest(method: "GET", path: "/v1/installations", remoteAddress: peer)
        if let key { request.headers["Authorization"] = "Bearer \(key)" }
        request.headers["X-Forwarded-For"] = forwardedFor
        do {
            let response = try await harness.api.router.handler(request)
            return Outcome(status: response.status, code: nil, message: "", headers: response.headers)
        } catch let error as HTTPError {
            return Outcome(status: error.status, code: error.code, message: error.message, headers: error.headers)
        }
    }

    /// Old app builds holding a revoked key, all behind one TLS proxy, must not lock anyone else out.
    @Test(arguments: [true, false])
    func aRevokedKeyFloodThroughAProxyLocksOutNoValidKey(_ trusted: Bool) async throws {
        let harness = try APIHarness { configuration in
            Self.limits(failures: Self.failures)(&configuration)
            if trusted { configuration.trustedProxies = try! TrustedProxies(["10.0.0.0/8"]) }
        }
        let revoked = try Self.badKey("revoked key", harness)
        let proxy = "10.0.0.2"
        for _ in 1...50 {
            _ = try await Self.sendThroughProxy(harness, key: revoked, peer: proxy, forwardedFor: "198.51.100.1")
        }
        #expect(
            try await Self.sendThroughProxy(harness, key: revoked, peer: proxy, forwardedFor: "198.51.100.1").status
                == 429)
        // Valid keys through the same proxy, from the flooding client and from others: served.
        for client in ["198.51.100.1", "198.51.100.2"] {
            #expect(
                try await Self.sendThroughProxy(harness, key: harness.serverKey, peer: proxy, forwardedFor: client)
                    .status == 200)
        }
        // Failures of another client: limited on their own when the proxy is trusted, with the flood's otherwise.
        let other = try await Self.sendThroughProxy(harness, key: "nope", peer: proxy, forwardedFor: "198.51.100.2")
        #expect(other.status == (trusted ? 401 : 429))
    }

    @Test func aClientCannotEscapeItsFailureLimitBySpoofingForwardedFor() async throws {
        let harness = try APIHarness { configuration in
            Self.limits(failures: Self.failures)(&configuration)
            configuration.trustedProxies = try! TrustedProxies(["10.0.0.0/8"])
        }
        // Directly, from an untrusted address, a new X-Forwarded-For each time: one bucket, the peer's.
        for attempt in 1...4 {
            let reply = try await Self.sendThroughProxy(
                harness, key: "nope", peer: "203.0.113.9", forwardedFor: "198.51.100.\(attempt)")
            #expect(reply.status == (attempt <= 3 ? 401 : 429), "attempt \(attempt)")
        }
        // Through the trusted proxy, prepending entries: the proxy appended the real client, which is limited.
        for attempt in 1...4 {
            let reply = try await Self.sendThroughProxy(
                harness, key: "nope", peer: "10.0.0.2", forwardedFor: "198.51.100.\(attempt), 203.0.113.50")
            #expect(reply.status == (attempt <= 3 ? 401 : 429), "attempt \(attempt)")
        }
    }

    // MARK: Nothing is stored

    @Test func aRequestRefused429StoresNothing() async throws {
        let harness = try APIHarness(
            configure: Self.limits(app: RateLimit(burst: 1, perSecond: 1), failures: Self.failures))
        let created = try await Self.send(harness, "PUT", "/v1/installations/first", key: harness.appKey, json: [:])
        #expect(created.status == 201)
        let refused = try await Self.send(
            harness, "PUT", "/v1/installations/second", key: harness.appKey,
            json: ["apns_token": .string(APIHarness.token(9))])
        #expect(refused.status == 429)
        #expect(try harness.store.installation(appID: "app_main", installationID: "second") == nil)
        let events = try await Self.send(
            harness, "POST", "/v1/events", key: harness.appKey,
            json: ["events": [harness.event("delivery", installation: "first")]], headers: APIHarness.device("first"))
        #expect(events.status == 429)
        #expect(try harness.store.events(appID: "app_main", query: EventQuery()).events.isEmpty)

        // Refused for its address's failures: nothing stored.
        let address = "192.0.2.99"
        for _ in 1...4 { _ = try await Self.send(harness, "PUT", "/v1/installations/x", key: "bad", from: address) }
        #expect(try harness.store.installation(appID: "app_main", installationID: "x") == nil)
        #expect(harness.metrics.counts.withLock { $0.upserts } == 1)
    }
}
