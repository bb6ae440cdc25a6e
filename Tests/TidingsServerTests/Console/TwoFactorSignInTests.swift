import Foundation
import Testing
import TidingsCrypto
import TidingsHTTP
import TidingsModel
import TidingsServer
import TidingsStore
import TidingsStoreTesting
import TidingsTesting

/// Two-factor sign-in (TOTP) through the API: enrolment, the code step of sign-in, replay, the window,
/// recovery codes, challenges, the admin requirement and reset, and sign-in limits shared by instances.
@Suite struct TwoFactorSignInTests {
    static let password = "correct horse battery"

    /// A console browser: its cookies (session and trusted-browser token) and CSRF token.
    struct Browser {
        var cookies: [String: String] = [:]
        var csrf = ""
        var address = "10.0.0.1"

        var cookieHeader: String {
            cookies.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
        }

        mutating func keep(_ response: HTTPResponse) {
            for header in response.headers where header.name == "Set-Cookie" {
                let pair = header.value.split(separator: ";")[0].split(separator: "=", maxSplits: 1)
                cookies[String(pair[0])] = pair.count > 1 ? String(pair[1]) : ""
            }
        }
    }

    func harness(
        _ backend: StoreBackend = .sqlite, configure: (inout TidingsAPI.Configuration) -> Void = { _ in }
    ) throws -> APIHarness {
        let harness = try APIHarness(
            backend: backend, secretSealer: SecretsKeyring(sealingKey: SecretsKey.generate()), configure: configure)
        let operators = OperatorAdministration(store: harness.store, clock: harness.clock)
        try operators.create(name: "ada", role: .admin, password: Self.password)
        try operators.create(name: "eve", role: .editor, password: Self.password)
        return harness
    }

    func call(
        _ harness: APIHarness, _ method: String, _ path: String, _ browser: inout Browser, json: JSONValue? = nil
    ) async throws -> APIHarness.Reply {
        var headers: [(String, String)] = [("Host", "console.test"), ("X-Tidings-App", "app_main")]
        if !browser.cookies.isEmpty { headers.append(("Cookie", browser.cookieHeader)) }
        if method != "GET" && !browser.csrf.isEmpty { headers.append(("X-CSRF-Token", browser.csrf)) }
        let reply = try await harness.call(
            method, path, json: json, headers: headers, remoteAddress: browser.address)
        browser.keep(reply.response)
        if let csrf = reply.json["csrf_token"]?.stringValue { browser.csrf = csrf }
        return reply
    }

    /// Password step: the reply (201 with a session, or 202 with a challenge).
    func signIn(
        _ harness: APIHarness, _ name: String, _ browser: inout Browser, password: String = Self.password
    ) async throws -> APIHarness.Reply {
        try await call(
            harness, "POST", "/v1/session", &browser, json: ["name": .string(name), "password": .string(password)])
    }

    static func recoveryCodes(_ reply: APIHarness.Reply) -> [String] {
        reply.json["recovery_codes"]?.arrayValue?.compactMap { $0.stringValue } ?? []
    }

    func code(_ secret: String, _ harness: APIHarness, steps offset: Int64 = 0) -> String {
        let now = Int64(harness.clock.now.timeIntervalSince1970)
        return TOTP(secret: Base32.decode(secret)!).code(step: TOTP.step(at: now) + offset)
    }

    /// Enrols `name` (signed in in `browser`); the secret in base32 and the recovery codes.
    func enrol(_ harness: APIHarness, _ browser: inout Browser) async throws -> (String, [String]) {
        let started = try await call(harness, "POST", "/v1/session/two-factor/enrolment", &browser)
        #expect(started.status == 201, "\(started.json)")
        let secret = try #require(started.json["secret"]?.stringValue)
        let confirmed = try await call(
            harness, "POST", "/v1/session/two-factor/confirmation", &browser,
            json: ["code": .string(code(secret, harness))])
        #expect(confirmed.status == 201, "\(confirmed.json)")
        let codes = Self.recoveryCodes(confirmed)
        // The next code must be a later step than the confirming one.
        harness.clock.advance(by: .seconds(30))
        return (secret, codes)
    }

    /// A new browser signed in with password only (2FA off).
    func signedIn(_ harness: APIHarness, _ name: String, address: String = "10.0.0.1") async throws -> Browser {
        var browser = Browser(address: address)
        #expect(try await signIn(harness, name, &browser).status == 201)
        return browser
    }

    @Test(arguments: StoreBackend.allCases)
    func enrolmentTurnsOnACodeStepThatRefusesReplays(_ backend: StoreBackend) async throws {
        let harness = try harness(backend)
        var browser = try await signedIn(harness, "ada")
        #expect(try await call(harness, "GET", "/v1/session/two-factor", &browser).json["enabled"] == false)
        let started = try await call(harness, "POST", "/v1/session/two-factor/enrolment", &browser)
        let secret = try #require(started.json["secret"]?.stringValue)
        #expect(Base32.decode(secret)?.count == 20)
        #expect(
            started.json["otpauth_uri"]?.stringValue
                == "otpauth://totp/Tidings:ada?secret=\(secret)&issuer=Tidings&algorithm=SHA1&digits=6&period=30")
        #expect(started.json["qr_svg"]?.stringValue?.hasPrefix("<svg") == true)
        let state = try await call(harness, "GET", "/v1/session/two-factor", &browser)
        #expect(state.json["enrolling"] == true)
        #expect(state.json["enabled"] == false)
        #expect(!"\(state.json)".contains(secret), "the secret is answered once")
        // Until confirmed, sign-in needs no code; a wrong code confirms nothing.
        var other = Browser(address: "10.0.0.2")
        #expect(try await signIn(harness, "ada", &other).status == 201)
        let wrong = try await call(
            harness, "POST", "/v1/session/two-factor/confirmation", &browser, json: ["code": "000000"])
        #expect(wrong.status == 401)
        #expect(wrong.errorCode == "invalid_code")
        let confirmingCode = code(secret, harness)
        let confirmed = try await call(
            harness, "POST", "/v1/session/two-factor/confirmation", &browser, json: ["code": .string(confirmingCode)])
        #expect(confirmed.status == 201)
        let codes = try #require(confirmed.json["recovery_codes"]?.arrayValue)
        #expect(codes.count == 10)
        #expect(Set(codes).count == 10)
        let after = try await call(harness, "GET", "/v1/session/two-factor", &browser)
        #expect(after.json["enabled"] == true)
        #expect(after.json["recovery_codes_left"] == 10)
        #expect(!"\(after.json)".contains(secret))
        // Sign-in now stops at the password with a challenge and no session.
        var next = Browser(address: "10.0.0.3")
        let password = try await signIn(harness, "ada", &next)
        #expect(password.status == 202)
        #expect(password.json["second_factor_required"] == true)
        #expect(next.cookies["tidings_session"] == nil)
        let challenge = try #require(password.json["challenge"]?.stringValue)
        // The confirming code, still inside its window, is a replay.
        let replay = try await call(
            harness, "POST", "/v1/session/second-factor", &next,
            json: ["challenge": .string(challenge), "code": .string(confirmingCode)])
        #expect(replay.status == 401)
        #expect(replay.errorCode == "invalid_code")
        harness.clock.advance(by: .seconds(30))
        let good = try await call(
            harness, "POST", "/v1/session/second-factor", &next,
            json: ["challenge": .string(challenge), "code": .string(code(secret, harness))])
        #expect(good.status == 201, "\(good.json)")
        #expect(next.cookies["tidings_session"] != nil)
        #expect(try await call(harness, "GET", "/v1/admin/apps", &next).status == 200)
        // The challenge was single-use.
        harness.clock.advance(by: .seconds(30))
        let again = try await call(
            harness, "POST", "/v1/session/second-factor", &next,
            json: ["challenge": .string(challenge), "code": .string(code(secret, harness))])
        #expect(again.errorCode == "challenge_expired")
        // Sign-ins are audited with their outcome.
        let audit = try harness.store.auditEntries(beforeSequence: nil, limit: 50)
        #expect(audit.contains { $0.action == "POST /v1/session" && $0.status == 202 && $0.operatorName == "ada" })
        #expect(audit.contains { $0.action == "POST /v1/session/second-factor" && $0.status == 201 })
        #expect(audit.contains { $0.action == "POST /v1/session/two-factor/confirmation" && $0.status == 201 })
    }

    @Test func aCodeOneStepAwayIsAcceptedAndTwoStepsAwayIsNot() async throws {
        let harness = try harness()
        var browser = try await signedIn(harness, "ada")
        let (secret, _) = try await enrol(harness, &browser)
        harness.clock.advance(by: .seconds(120))
        func attempt(_ offset: Int64) async throws -> Int {
            var fresh = Browser(address: "10.0.0.1")
            let challenge = try #require(try await signIn(harness, "ada", &fresh).json["challenge"]?.stringValue)
            return try await call(
                harness, "POST", "/v1/session/second-factor", &fresh,
                json: ["challenge": .string(challenge), "code": .string(code(secret, harness, steps: offset))]
            ).status
        }
        #expect(try await attempt(-2) == 401)
        #expect(try await attempt(2) == 401)
        #expect(try await attempt(-1) == 201)
        #expect(try await attempt(1) == 201)
        // Now the current step is at or before the last one accepted: a replay.
        #expect(try await attempt(0) == 401)
        #expect(try await attempt(-1) == 401)
    }

    @Test func aRecoveryCodeSignsInOnceInAnyCaseAndWithoutItsDash() async throws {
        let harness = try harness()
        var browser = try await signedIn(harness, "ada")
        let (_, codes) = try await enrol(harness, &browser)
        #expect(codes.allSatisfy { $0.count == 11 && $0.contains("-") })
        func attempt(_ code: String) async throws -> Int {
            var fresh = Browser(address: "10.0.0.1")
            let challenge = try #require(try await signIn(harness, "ada", &fresh).json["challenge"]?.stringValue)
            return try await call(
                harness, "POST", "/v1/session/second-factor", &fresh,
                json: ["challenge": .string(challenge), "code": .string(code)]
            ).status
        }
        #expect(try await attempt(codes[0].uppercased().replacingOccurrences(of: "-", with: "")) == 201)
        #expect(try await attempt(codes[0]) == 401, "used up")
        #expect(try await attempt("aaaaa-bbbbb") == 401)
        #expect(try await call(harness, "GET", "/v1/session/two-factor", &browser).json["recovery_codes_left"] == 9)
        // Regenerating needs the password and a code, and replaces every old code.
        let noCode = try await call(
            harness, "POST", "/v1/session/two-factor/recovery-codes", &browser,
            json: ["password": .string(Self.password), "code": .string(codes[2])])
        #expect(noCode.status == 200)
        let fresh = Self.recoveryCodes(noCode)
        #expect(fresh.count == 10)
        #expect(try await attempt(codes[1]) == 401, "replaced")
        #expect(try await attempt(fresh[0]) == 201)
        let wrongPassword = try await call(
            harness, "POST", "/v1/session/two-factor/recovery-codes", &browser,
            json: ["password": "wrong", "code": .string(fresh[1])])
        #expect(wrongPassword.status == 401)
        #expect(wrongPassword.errorCode == "invalid_credentials")
        let missing = try await call(
            harness, "POST", "/v1/session/two-factor/recovery-codes", &browser,
            json: ["password": .string(Self.password)])
        #expect(missing.status == 400)
    }

    @Test func aChallengeExpiresAndDiesAfterItsTries() async throws {
        let harness = try harness()
        var browser = try await signedIn(harness, "eve")
        let (secret, _) = try await enrol(harness, &browser)
        var late = Browser(address: "10.0.0.1")
        let expiring = try #require(try await signIn(harness, "eve", &late).json["challenge"]?.stringValue)
        harness.clock.advance(by: .seconds(301))
        let expired = try await call(
            harness, "POST", "/v1/session/second-factor", &late,
            json: ["challenge": .string(expiring), "code": .string(code(secret, harness))])
        #expect(expired.status == 401)
        #expect(expired.errorCode == "challenge_expired")

        var guesser = Browser(address: "10.0.0.1")
        let challenge = try #require(try await signIn(harness, "eve", &guesser).json["challenge"]?.stringValue)
        for guess in 0..<5 {
            let reply = try await call(
                harness, "POST", "/v1/session/second-factor", &guesser,
                json: ["challenge": .string(challenge), "code": .string(String(format: "%06d", guess))])
            #expect(reply.errorCode == "invalid_code")
        }
        let sixth = try await call(
            harness, "POST", "/v1/session/second-factor", &guesser,
            json: ["challenge": .string(challenge), "code": .string(code(secret, harness))])
        #expect(sixth.errorCode == "challenge_expired", "five tries, then the password is needed again")
        let unknown = try await call(
            harness, "POST", "/v1/session/second-factor", &guesser, json: ["challenge": "made-up", "code": "123456"])
        #expect(unknown.errorCode == "challenge_expired")
        let malformed = try await call(
            harness, "POST", "/v1/session/second-factor", &guesser, json: ["challenge": "made-up"])
        #expect(malformed.status == 400)
    }

    /// Someone who has ada's password guesses codes from elsewhere until the account's limit is spent; ada's
    /// known browser still signs in with the password and a code.
    @Test func codeGuessesElsewhereNeverLockOutTheKnownBrowser() async throws {
        let harness = try harness()
        var ada = try await signedIn(harness, "ada")
        let (secret, _) = try await enrol(harness, &ada)
        for round in 0..<3 {
            var thief = Browser(address: "203.0.113.\(round)")
            let challenge = try #require(try await signIn(harness, "ada", &thief).json["challenge"]?.stringValue)
            for guess in 0..<2 {
                _ = try await call(
                    harness, "POST", "/v1/session/second-factor", &thief,
                    json: ["challenge": .string(challenge), "code": .string(String(format: "%06d", guess))])
            }
        }
        var thief = Browser(address: "203.0.113.99")
        #expect(try await signIn(harness, "ada", &thief).status == 429, "the account's limit is spent")
        ada.address = "198.51.100.7"
        let password = try await signIn(harness, "ada", &ada)
        #expect(password.status == 202)
        let challenge = try #require(password.json["challenge"]?.stringValue)
        let signedIn = try await call(
            harness, "POST", "/v1/session/second-factor", &ada,
            json: ["challenge": .string(challenge), "code": .string(code(secret, harness))])
        #expect(signedIn.status == 201, "\(signedIn.json)")
    }

    @Test func requiredForAdminsAnAdminWithoutItMayOnlyEnrol() async throws {
        let harness = try harness { $0.consoleSessions.requireAdminTwoFactor = true }
        var ada = Browser()
        let reply = try await signIn(harness, "ada", &ada)
        #expect(reply.status == 201)
        #expect(reply.json["two_factor"]?["enrolment_required"] == true)
        let refused = try await call(harness, "GET", "/v1/admin/apps", &ada)
        #expect(refused.status == 403)
        #expect(refused.errorCode == "two_factor_enrolment_required")
        #expect(try await call(harness, "GET", "/v1/installations", &ada).status == 403)
        #expect(try await call(harness, "GET", "/v1/session", &ada).status == 200)
        #expect(try await call(harness, "GET", "/v1/session/two-factor", &ada).json["required"] == true)
        // Editors are not held to it.
        var eve = try await signedIn(harness, "eve")
        #expect(try await call(harness, "GET", "/v1/installations", &eve).status == 200)
        // Once enrolled, the admin's session opens everything again.
        let (secret, _) = try await enrol(harness, &ada)
        #expect(try await call(harness, "GET", "/v1/admin/apps", &ada).status == 200)
        #expect(try await call(harness, "GET", "/v1/session", &ada).json["two_factor"]?["enrolment_required"] == false)
        // While required, an admin cannot turn it off.
        let disable = try await call(
            harness, "POST", "/v1/session/two-factor/disable", &ada,
            json: ["password": .string(Self.password), "code": .string(code(secret, harness))])
        #expect(disable.status == 409)
        #expect(disable.errorCode == "two_factor_required")
    }

    @Test func anOperatorTurnsItOffWithPasswordAndCodeAndAnAdminResetsItAudited() async throws {
        let harness = try harness()
        var eve = try await signedIn(harness, "eve")
        let (secret, _) = try await enrol(harness, &eve)
        let noCode = try await call(
            harness, "POST", "/v1/session/two-factor/disable", &eve,
            json: ["password": .string(Self.password), "code": "000000"])
        #expect(noCode.status == 401)
        let off = try await call(
            harness, "POST", "/v1/session/two-factor/disable", &eve,
            json: ["password": .string(Self.password), "code": .string(code(secret, harness))])
        #expect(off.status == 204)
        #expect(try await signedIn(harness, "eve").cookies["tidings_session"] != nil)

        _ = try await enrol(harness, &eve)
        var ada = try await signedIn(harness, "ada")
        let operators = try await call(harness, "GET", "/v1/admin/operators", &ada)
        #expect(operators.json["operators"]?.arrayValue?.first { $0["name"] == "eve" }?["two_factor"] == true)
        // Only admins reset; an editor's session is refused by the role matrix.
        #expect(try await call(harness, "DELETE", "/v1/admin/operators/ada/two-factor", &eve).status == 403)
        #expect(try await call(harness, "DELETE", "/v1/admin/operators/eve/two-factor", &ada).status == 204)
        #expect(try await call(harness, "DELETE", "/v1/admin/operators/eve/two-factor", &ada).status == 404)
        #expect(try await call(harness, "DELETE", "/v1/admin/operators/nobody/two-factor", &ada).status == 404)
        var back = Browser(address: "10.0.0.5")
        #expect(try await signIn(harness, "eve", &back).status == 201, "password alone after the reset")
        let audit = try harness.store.auditEntries(beforeSequence: nil, limit: 100)
        #expect(
            audit.contains {
                $0.action == "DELETE /v1/admin/operators/{name}/two-factor" && $0.operatorName == "ada"
                    && $0.target == "/v1/admin/operators/eve/two-factor" && $0.status == 204
            })
    }

    @Test func twoFactorSettingsAreASessionsOwnNotAKeys() async throws {
        let harness = try harness()
        let admin = try AppAdministration(store: harness.store).createAdminKey().secret
        let reply = try await harness.call("POST", "/v1/session/two-factor/enrolment", key: admin)
        #expect(reply.status == 401)
        var eve = try await signedIn(harness, "eve")
        eve.csrf = "forged"
        #expect(try await call(harness, "POST", "/v1/session/two-factor/enrolment", &eve).status == 403)
    }

    @Test func enrolmentIsRefusedWhenTheStoreCannotSealTheSecret() async throws {
        let harness = try APIHarness()
        try OperatorAdministration(store: harness.store, clock: harness.clock).create(
            name: "ada", role: .admin, password: Self.password)
        var ada = try await signedIn(harness, "ada")
        let reply = try await call(harness, "POST", "/v1/session/two-factor/enrolment", &ada)
        #expect(reply.status == 409)
        #expect(reply.errorCode == "secrets_key_required")
    }

    /// Two instances on one store share the sign-in limits: guesses split between them meet one limit.
    @Test(arguments: StoreBackend.allCases)
    func signInLimitsAreSharedByInstancesOnOneStore(_ backend: StoreBackend) async throws {
        let sealer = SecretsKeyring(sealingKey: SecretsKey.generate())
        let stores = try backend.makeSharedStores(count: 2, secretSealer: sealer)
        let first = try APIHarness(backend: backend, sharing: stores[0])
        let second = try APIHarness(backend: backend, sharing: stores[1], clock: first.clock)
        try OperatorAdministration(store: first.store, clock: first.clock).create(
            name: "eve", role: .editor, password: Self.password)
        for guess in 0..<5 {
            var browser = Browser(address: "203.0.113.\(guess)")
            let reply = try await signIn(guess % 2 == 0 ? first : second, "eve", &browser, password: "guess \(guess)")
            #expect(reply.status == 401)
        }
        for instance in [first, second] {
            var browser = Browser(address: "203.0.113.50")
            #expect(try await signIn(instance, "eve", &browser).status == 429)
        }
        first.clock.advance(by: .seconds(60))
        var browser = Browser(address: "203.0.113.50")
        #expect(try await signIn(second, "eve", &browser).status == 201)
    }
}
