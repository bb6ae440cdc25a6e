import Foundation
import Testing
import TidingsHTTP
import TidingsModel
import TidingsServer
import TidingsStore
import TidingsTesting

/// Console sessions as an alternative to keys: sign-in and its limits, the cookie, CSRF and origin checks on
/// writes, roles, timeouts, sign-out and the audit log.
@Suite struct ConsoleSessionTests {
    static let password = "correct horse battery"

    /// A signed-in browser: its cookie and CSRF token.
    struct Browser {
        var cookie: String
        var csrf: String
    }

    func harness(_ configure: (inout TidingsAPI.Configuration) -> Void = { _ in }) throws -> APIHarness {
        let harness = try APIHarness(configure: configure)
        let operators = OperatorAdministration(store: harness.store, clock: harness.clock)
        try operators.create(name: "ada", role: .admin, password: Self.password)
        try operators.create(name: "eve", role: .editor, password: Self.password)
        try operators.create(name: "vic", role: .viewer, password: Self.password)
        return harness
    }

    func signIn(_ harness: APIHarness, _ name: String, address: String = "10.0.0.1") async throws -> Browser {
        let reply = try await call(
            harness, "POST", "/v1/session", json: ["name": .string(name), "password": .string(Self.password)])
        #expect(reply.status == 201)
        let setCookie = try #require(reply.response.headers["Set-Cookie"])
        let cookie = String(setCookie.split(separator: ";")[0])
        return Browser(cookie: cookie, csrf: try #require(reply.json["csrf_token"]?.stringValue))
    }

    /// A request as the console makes it: cookie, chosen app, and the CSRF token on writes unless left out.
    func call(
        _ harness: APIHarness, _ method: String, _ path: String, browser: Browser? = nil, json: JSONValue? = nil,
        app: String? = "app_main", csrf: Bool = true, origin: String? = nil, address: String = "10.0.0.1"
    ) async throws -> APIHarness.Reply {
        var headers: [(String, String)] = [("Host", "console.test")]
        if let browser {
            headers.append(("Cookie", "theme=dark; \(browser.cookie)"))
            if csrf && method != "GET" { headers.append(("X-CSRF-Token", browser.csrf)) }
        }
        if let app { headers.append(("X-Tidings-App", app)) }
        if let origin { headers.append(("Origin", origin)) }
        return try await harness.call(method, path, json: json, headers: headers, remoteAddress: address)
    }

    @Test func signingInSetsAStrictHttpOnlyCookieAndAnswersTheCSRFTokenAndApps() async throws {
        let harness = try harness()
        let reply = try await call(
            harness, "POST", "/v1/session", json: ["name": "ada", "password": .string(Self.password)])
        #expect(reply.status == 201)
        let cookie = try #require(reply.response.headers["Set-Cookie"])
        #expect(cookie.hasPrefix("tidings_session="))
        for attribute in ["HttpOnly", "SameSite=Strict", "Path=/"] { #expect(cookie.contains(attribute)) }
        #expect(!cookie.contains("Secure"), "plain HTTP on loopback: no Secure unless configured")
        #expect(reply.json["operator"]?["role"] == "admin")
        #expect(reply.json["apps"]?.arrayValue?.count == 2)
        #expect(reply.response.headers["Cache-Control"] == "no-store")

        let browser = try await signIn(harness, "ada")
        let me = try await call(harness, "GET", "/v1/session", browser: browser)
        #expect(me.status == 200)
        #expect(me.json["csrf_token"]?.stringValue == browser.csrf)
    }

    @Test func anHTTPSOriginMakesTheCookieSecure() async throws {
        let harness = try harness { $0.consoleSessions.secureCookie = true }
        let reply = try await call(
            harness, "POST", "/v1/session", json: ["name": "ada", "password": .string(Self.password)])
        #expect(reply.response.headers["Set-Cookie"]?.contains("; Secure") == true)
    }

    @Test func aWrongPasswordAndAnUnknownNameAreRefusedAlike() async throws {
        let harness = try harness()
        let wrong = try await call(harness, "POST", "/v1/session", json: ["name": "ada", "password": "wrong password"])
        let unknown = try await call(
            harness, "POST", "/v1/session", json: ["name": "nobody", "password": .string(Self.password)])
        #expect(wrong.status == 401)
        #expect(unknown.status == 401)
        #expect(wrong.json == unknown.json)
        #expect(wrong.response.headers["Set-Cookie"] == nil)
        let malformed = try await call(harness, "POST", "/v1/session", json: ["name": "ada"])
        #expect(malformed.status == 400)
        let extra = try await call(
            harness, "POST", "/v1/session", json: ["name": "ada", "password": "x", "remember": true])
        #expect(extra.status == 400)
    }

    @Test func failedSignInsAreLimitedPerAccountAndTheRightPasswordWaitsToo() async throws {
        let harness = try harness()
        for attempt in 0..<5 {
            let reply = try await harness.call(
                "POST", "/v1/session", json: ["name": "eve", "password": .string("guess \(attempt)")],
                headers: [("Host", "console.test")])
            #expect(reply.status == 401)
        }
        let limited = try await call(
            harness, "POST", "/v1/session", json: ["name": "eve", "password": .string(Self.password)])
        #expect(limited.status == 429)
        #expect(limited.response.headers["Retry-After"] != nil || limited.errorCode == "rate_limited")
        // Another account is not held back by eve's failures.
        #expect(
            try await call(harness, "POST", "/v1/session", json: ["name": "vic", "password": .string(Self.password)])
                .status == 201)
        harness.clock.advance(by: .seconds(60))
        #expect(
            try await call(harness, "POST", "/v1/session", json: ["name": "eve", "password": .string(Self.password)])
                .status == 201)
    }

    /// Someone guessing `ada`'s password from many addresses exhausts the account's limit; ada still signs in
    /// from the browser and the address she used before, and only the guesser waits.
    @Test func guessesFromElsewhereNeverLockOutTheOperatorsKnownBrowserOrAddress() async throws {
        let harness = try harness()
        let first = try await call(
            harness, "POST", "/v1/session", json: ["name": "ada", "password": .string(Self.password)],
            address: "10.0.0.1")
        #expect(first.status == 201)
        let cookies = first.response.headers.filter { $0.name == "Set-Cookie" }.map(\.value)
        let browserCookie = try #require(cookies.first { $0.hasPrefix("tidings_browser=") })
        for attribute in ["Path=/v1/session", "HttpOnly", "SameSite=Strict", "Max-Age=7776000"] {
            #expect(browserCookie.contains(attribute), "\(browserCookie)")
        }
        let browserToken = String(browserCookie.split(separator: ";")[0])

        func signIn(_ password: String, from address: String, cookie: String? = nil) async throws -> Int {
            var headers: [(String, String)] = [("Host", "console.test")]
            if let cookie { headers.append(("Cookie", cookie)) }
            return try await harness.call(
                "POST", "/v1/session", json: ["name": "ada", "password": .string(password)], headers: headers,
                remoteAddress: address
            ).status
        }
        // Guesses spread over addresses, each below its address's limit, exhaust the account's.
        for guess in 0..<8 { _ = try await signIn("guess \(guess)", from: "203.0.113.\(guess)") }
        #expect(try await signIn(Self.password, from: "203.0.113.200") == 429)
        // The known browser, from anywhere, and the known address, without the cookie, still get in.
        #expect(try await signIn(Self.password, from: "198.51.100.7", cookie: "theme=dark; \(browserToken)") == 201)
        #expect(try await signIn(Self.password, from: "10.0.0.1") == 201)
        // A browser token ada never signed in with is no key.
        #expect(try await signIn(Self.password, from: "198.51.100.8", cookie: "tidings_browser=made-up") == 429)
        // Wrong passwords through the trusted browser count in a bucket of its own, and only stop that browser.
        for guess in 0..<10 {
            #expect(try await signIn("wrong \(guess)", from: "198.51.100.9", cookie: browserToken) == 401)
        }
        #expect(try await signIn(Self.password, from: "198.51.100.9", cookie: browserToken) == 429)
        #expect(try await signIn(Self.password, from: "10.0.0.1") == 201)
        // Trust ends with the operator, and after the lifetime.
        try harness.store.removeOperator(name: "ada")
        try OperatorAdministration(store: harness.store, clock: harness.clock).create(
            name: "ada", role: .admin, password: Self.password)
        #expect(try await signIn(Self.password, from: "10.0.0.1") == 429)
    }

    @Test func writesNeedTheCSRFTokenAndThisOrigin() async throws {
        let harness = try harness()
        let browser = try await signIn(harness, "eve")
        let body: JSONValue = ["platform": "ios"]
        let missing = try await call(harness, "PUT", "/v1/installations/i1", browser: browser, json: body, csrf: false)
        #expect(missing.status == 403)
        #expect(missing.errorCode == "csrf_token_missing")
        var forged = browser
        forged.csrf = "not-the-token"
        #expect(try await call(harness, "PUT", "/v1/installations/i1", browser: forged, json: body).status == 403)
        let elsewhere = try await call(
            harness, "PUT", "/v1/installations/i1", browser: browser, json: body, origin: "https://evil.example")
        #expect(elsewhere.status == 403)
        #expect(elsewhere.errorCode == "origin_refused")
        let good = try await call(
            harness, "PUT", "/v1/installations/i1", browser: browser, json: body, origin: "http://console.test")
        #expect(good.status == 201)
        // Reads need no token.
        let read = try await call(harness, "GET", "/v1/installations/i1", browser: browser)
        #expect(read.status == 200)
    }

    @Test func rolesLimitWhatASessionMayDo() async throws {
        let harness = try harness()
        let viewer = try await signIn(harness, "vic")
        let editor = try await signIn(harness, "eve")
        let admin = try await signIn(harness, "ada")
        #expect(try await call(harness, "GET", "/v1/messages", browser: viewer).status == 200)
        // Personal data in bulk is not a viewer's to read.
        #expect(try await call(harness, "GET", "/v1/installations", browser: viewer).status == 403)
        #expect(try await call(harness, "GET", "/v1/installations", browser: editor).status == 200)
        let viewerWrite = try await call(
            harness, "PUT", "/v1/installations/i1", browser: viewer, json: ["platform": "ios"])
        #expect(viewerWrite.status == 403)
        #expect(
            try await call(harness, "POST", "/v1/lint", browser: viewer, json: ["content": ["title": "Hi"]]).status
                == 200)
        #expect(
            try await call(harness, "PUT", "/v1/installations/i1", browser: editor, json: ["platform": "ios"]).status
                == 201)
        for browser in [viewer, editor] {
            #expect(try await call(harness, "GET", "/v1/admin/apps", browser: browser).status == 403)
            #expect(try await call(harness, "GET", "/v1/audit", browser: browser).status == 403)
        }
        #expect(try await call(harness, "GET", "/v1/admin/apps", browser: admin).status == 200)
        // App data needs an app, and only a real one.
        #expect(try await call(harness, "GET", "/v1/installations", browser: admin, app: nil).status == 400)
        #expect(try await call(harness, "GET", "/v1/installations", browser: admin, app: "app_missing").status == 404)
        // A session sees the chosen app only.
        _ = try await call(
            harness, "PUT", "/v1/installations/o1", browser: admin, json: ["platform": "ios"], app: "app_other")
        let main = try await call(harness, "GET", "/v1/installations", browser: admin)
        #expect(main.json["installations"]?.arrayValue?.map { $0["installation_id"] } == ["i1"])
    }

    @Test func sessionsEndWhenIdleOrTooOldAndOnRoleChange() async throws {
        let harness = try harness {
            $0.consoleSessions.idleTimeout = 600
            $0.consoleSessions.absoluteTimeout = 1800
        }
        var browser = try await signIn(harness, "ada")
        harness.clock.advance(by: .seconds(500))
        #expect(try await call(harness, "GET", "/v1/session", browser: browser).status == 200)
        harness.clock.advance(by: .seconds(500))
        #expect(
            try await call(harness, "GET", "/v1/session", browser: browser).status == 200,
            "use restarted the idle clock")
        harness.clock.advance(by: .seconds(601))
        let idle = try await call(harness, "GET", "/v1/session", browser: browser)
        #expect(idle.status == 401)
        #expect(idle.errorCode == "session_expired")

        browser = try await signIn(harness, "ada")
        for _ in 0..<4 {
            harness.clock.advance(by: .seconds(500))
            _ = try await call(harness, "GET", "/v1/session", browser: browser)
        }
        #expect(
            try await call(harness, "GET", "/v1/session", browser: browser).status == 401, "past the absolute limit")

        browser = try await signIn(harness, "ada")
        try OperatorAdministration(store: harness.store).setRole(name: "ada", role: .viewer)
        #expect(try await call(harness, "GET", "/v1/session", browser: browser).status == 401)
    }

    @Test func signingOutEndsTheSessionOnTheServer() async throws {
        let harness = try harness()
        let browser = try await signIn(harness, "eve")
        #expect(try await call(harness, "DELETE", "/v1/session", browser: browser, csrf: false).status == 403)
        let out = try await call(harness, "DELETE", "/v1/session", browser: browser)
        #expect(out.status == 204)
        #expect(out.response.headers["Set-Cookie"]?.contains("Max-Age=0") == true)
        #expect(try await call(harness, "GET", "/v1/session", browser: browser).status == 401)
        #expect(try await call(harness, "GET", "/v1/installations", browser: browser).status == 401)
        #expect(
            try await call(harness, "DELETE", "/v1/session", browser: browser).status == 204, "again: nothing to end")
    }

    @Test func everyWriteThroughASessionIsAuditedWithItsOutcome() async throws {
        let harness = try harness()
        let editor = try await signIn(harness, "eve")
        _ = try await call(harness, "PUT", "/v1/installations/i1", browser: editor, json: ["platform": "ios"])
        _ = try await call(harness, "PUT", "/v1/installations/bad%20id", browser: editor, json: ["platform": "ios"])
        _ = try await call(harness, "POST", "/v1/lint", browser: editor, json: ["content": ["title": "Hi"]])
        _ = try await call(harness, "GET", "/v1/installations", browser: editor)
        // Writes with a key are recorded under the key (AuditTrailTests), not an operator.
        _ = try await harness.call("PUT", "/v1/installations/i2", key: harness.serverKey, json: ["platform": "ios"])
        _ = try await call(harness, "POST", "/v1/session", json: ["name": "eve", "password": "wrong password"])

        let admin = try await signIn(harness, "ada")
        let log = try await call(harness, "GET", "/v1/audit", browser: admin, app: nil)
        #expect(log.status == 200)
        let entries = try #require(log.json["entries"]?.arrayValue)
        let summary = entries.map {
            "\($0["operator"]?.stringValue ?? "") \($0["action"]?.stringValue ?? "") \($0["status"]?.integerValue ?? 0)"
        }
        #expect(
            summary == [
                "ada POST /v1/session 201", "eve POST /v1/session 401", " PUT /v1/installations/{installation_id} 201",
                "eve PUT /v1/installations/{installation_id} 400", "eve PUT /v1/installations/{installation_id} 201",
                "eve POST /v1/session 201",
            ])
        #expect(entries[2]["credential"] == "server_key")
        #expect(entries[4]["app_id"] == "app_main")
        #expect(entries[4]["target"] == "/v1/installations/i1")
        #expect(entries[4]["address"] == "10.0.0.1")
        let adminKey = try AppAdministration(store: harness.store).createAdminKey().secret
        #expect(try await harness.call("GET", "/v1/audit", key: adminKey).status == 200)
        #expect(try await harness.call("GET", "/v1/audit", key: harness.serverKey).status == 403)
        let page = try await harness.call("GET", "/v1/audit", key: adminKey, query: [("limit", "2")])
        let next = try #require(page.json["next_cursor"]?.stringValue)
        let second = try await harness.call(
            "GET", "/v1/audit", key: adminKey, query: [("limit", "2"), ("cursor", next)])
        #expect(second.json["entries"]?.arrayValue?.first?["action"] == "PUT /v1/installations/{installation_id}")
    }

    @Test func theAuditLogRecordsTheClientATrustedProxyNamesAndNeverASpoofedOne() async throws {
        let harness = try harness { $0.trustedProxies = try! TrustedProxies(["10.0.0.0/8"]) }
        let body: JSONValue = ["name": "ada", "password": .string(Self.password)]
        let headers = [("Host", "console.test"), ("X-Forwarded-For", "6.6.6.6, 198.51.100.7")]
        #expect(
            try await harness.call("POST", "/v1/session", json: body, headers: headers, remoteAddress: "10.0.0.2")
                .status == 201)
        #expect(
            try await harness.call("POST", "/v1/session", json: body, headers: headers, remoteAddress: "203.0.113.9")
                .status == 201)
        let adminKey = try AppAdministration(store: harness.store).createAdminKey().secret
        let log = try await harness.call("GET", "/v1/audit", key: adminKey)
        let addresses = log.json["entries"]?.arrayValue?.map { $0["address"]?.stringValue }
        #expect(addresses == ["203.0.113.9", "198.51.100.7"])
    }

    @Test func aKeyStillWinsOverACookie() async throws {
        let harness = try harness()
        let viewer = try await signIn(harness, "vic")
        let reply = try await harness.call(
            "PUT", "/v1/installations/i9", key: harness.serverKey, json: ["platform": "ios"],
            headers: [("Cookie", viewer.cookie)])
        #expect(reply.status == 201)
        let garbage = try await harness.call(
            "GET", "/v1/installations", headers: [("Cookie", "tidings_session=forged"), ("X-Tidings-App", "app_main")])
        #expect(garbage.status == 401)
    }
}
