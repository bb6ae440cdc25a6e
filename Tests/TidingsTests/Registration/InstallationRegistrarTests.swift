import Foundation
import Testing
import Tidings
import TidingsTesting

@Suite struct InstallationRegistrarTests {
    // MARK: Change detection

    @Test func firstSyncSendsTheWholeStateAndASecondSendsNothing() async throws {
        let fixture = RegistrationFixture(RegistrationFixture.echoes(1))
        defer { fixture.removeFiles() }
        let registrar = try fixture.registrar()
        await registrar.setPermission(.authorized)
        try await registrar.setAPNsToken(RegistrationFixture.token(0xAB))

        guard case .sent(let installation) = await registrar.sync() else {
            Issue.record("the first sync did not send")
            return
        }
        #expect(installation.state.apnsToken?.value == RegistrationFixture.hex(0xAB))
        #expect(await registrar.sync() == .unchanged)
        #expect(fixture.transport.requestCount == 1)

        let request = try #require(fixture.transport.requests.first)
        #expect(request.method == "PUT")
        #expect(request.url.absoluteString == "https://push.example.com" + fixture.installationPath)
        #expect(request.header("Authorization") == "Bearer tdg_app_test")
        #expect(request.header("Content-Type") == "application/json")
        #expect(request.header("X-Tidings-Installation") == RegistrationFixture.installationID.uuidString.lowercased())
        let body = try fixture.body(0)
        #expect(body["apns_token"]?.stringValue == RegistrationFixture.hex(0xAB))
        #expect(body["permission"] == "authorized")
        #expect(body["platform"] == "ios")
    }

    @Test func oneChangeSendsOneRequestAndSettingTheSameValueSendsNone() async throws {
        let fixture = RegistrationFixture(RegistrationFixture.echoes(2))
        defer { fixture.removeFiles() }
        let registrar = try fixture.registrar()
        await registrar.setConsents(.init(notifications: true))
        await registrar.sync()
        await registrar.setConsents(.init(notifications: true))
        #expect(await registrar.sync() == .unchanged)
        await registrar.setConsents(.init(notifications: true, ads: true, nightAds: false))
        guard case .sent = await registrar.sync() else {
            Issue.record("the change was not sent")
            return
        }
        #expect(fixture.transport.requestCount == 2)
        #expect(try fixture.body(1)["consents"] == ["notifications": true, "ads": true, "night_ads": false])
    }

    @Test func newAPNsTokenReplacesTheOldOne() async throws {
        let fixture = RegistrationFixture(RegistrationFixture.echoes(2))
        defer { fixture.removeFiles() }
        let registrar = try fixture.registrar()
        await registrar.setPermission(.authorized)
        try await registrar.setAPNsToken(RegistrationFixture.token(0x01))
        await registrar.sync()
        try await registrar.setAPNsToken(RegistrationFixture.token(0x02))
        await registrar.sync()
        let second = try fixture.body(1)
        #expect(second["apns_token"]?.stringValue == RegistrationFixture.hex(0x02))
        #expect(
            !String(decoding: fixture.transport.requests[1].body, as: UTF8.self).contains(RegistrationFixture.hex(0x01))
        )
    }

    @Test func forcedOrDueRefreshResendsAnUnchangedState() async throws {
        let fixture = RegistrationFixture(RegistrationFixture.echoes(3))
        defer { fixture.removeFiles() }
        let registrar = try fixture.registrar { $0.refreshInterval = .seconds(3600) }
        await registrar.sync()
        guard case .sent = await registrar.sync(force: true) else {
            Issue.record("a forced sync did not send")
            return
        }
        fixture.clock.advance(by: .seconds(3599))
        #expect(await registrar.sync() == .unchanged)
        fixture.clock.advance(by: .seconds(1))
        guard case .sent = await registrar.sync() else {
            Issue.record("a due refresh did not send")
            return
        }
        #expect(fixture.transport.requestCount == 3)
    }

    // MARK: Persistence

    @Test func changeMadeOfflineIsSentByTheNextInstance() async throws {
        let fixture = RegistrationFixture([.fail(.connectionFailed())])
        defer { fixture.removeFiles() }
        do {
            let offline = try fixture.registrar()
            try await offline.login(userID: "user-7")
            guard case .deferred(_, let reason) = await offline.sync() else {
                Issue.record("an offline sync was not deferred")
                return
            }
            #expect(reason.code == "transport_failed")
        }
        fixture.clock.advance(by: .seconds(60))
        fixture.transport.enqueue(RegistrationFixture.echo)
        let relaunched = try fixture.registrar()
        #expect(await relaunched.userID == "user-7")
        guard case .sent = await relaunched.sync() else {
            Issue.record("the next instance did not send the change")
            return
        }
        #expect(try fixture.body(1)["user_id"] == "user-7")

        // What the server acknowledged is remembered too: a third launch sends nothing.
        let third = try fixture.registrar()
        #expect(await third.sync() == .unchanged)
        #expect(fixture.transport.requestCount == 2)
    }

    @Test func unreadableRecordStartsAfresh() async throws {
        let fixture = RegistrationFixture(RegistrationFixture.echoes(1))
        defer { fixture.removeFiles() }
        try FileManager.default.createDirectory(at: fixture.directory, withIntermediateDirectories: true)
        try Data("{not json".utf8).write(to: fixture.directory.appendingPathComponent("tidings-registration.json"))
        let registrar = try fixture.registrar()
        #expect(await registrar.desiredState == InstallationState())
        guard case .sent = await registrar.sync() else {
            Issue.record("a fresh registrar did not register")
            return
        }
    }

    // MARK: Retry

    @Test(arguments: [
        ScriptedTransport.Step.respond(status: 500), .respond(status: 503), .respond(status: 429),
        .respond(status: 408), .fail(.timeout()), .fail(.connectionFailed()),
    ])
    func transientFailureBacksOffAndRetries(failure: ScriptedTransport.Step) async throws {
        let fixture = RegistrationFixture([failure, failure, RegistrationFixture.echo])
        defer { fixture.removeFiles() }
        let registrar = try fixture.registrar()
        let start = fixture.clock.now

        // Full jitter with the all-ones generator waits the whole ceiling: 1 s, then 2 s.
        guard case .deferred(let firstRetry, let reason) = await registrar.sync() else {
            Issue.record("a transient failure was not deferred")
            return
        }
        #expect(reason.isTransient)
        #expect(firstRetry == start.addingTimeInterval(1))
        #expect(await registrar.sync() == .deferred(retryAt: firstRetry, reason: reason))
        #expect(fixture.transport.requestCount == 1)

        fixture.clock.advance(by: .seconds(1))
        guard case .deferred(let secondRetry, _) = await registrar.sync() else {
            Issue.record("the second failure was not deferred")
            return
        }
        #expect(secondRetry == start.addingTimeInterval(3))
        fixture.clock.advance(by: .seconds(2))
        guard case .sent = await registrar.sync() else {
            Issue.record("the retry did not send")
            return
        }
        #expect(fixture.transport.requestCount == 3)
    }

    @Test func retryAfterIsHonoured() async throws {
        let fixture = RegistrationFixture([
            RegistrationFixture.error(503, "unavailable", "try later", headers: ["Retry-After": "120"]),
            RegistrationFixture.echo,
        ])
        defer { fixture.removeFiles() }
        let registrar = try fixture.registrar()
        guard case .deferred(let retryAt, let reason) = await registrar.sync() else {
            Issue.record("a 503 was not deferred")
            return
        }
        #expect(retryAt == fixture.clock.now.addingTimeInterval(120))
        #expect(reason == .unavailable(status: 503, message: "try later"))
        fixture.clock.advance(by: .seconds(119))
        guard case .deferred = await registrar.sync() else {
            Issue.record("the registrar sent before Retry-After")
            return
        }
        fixture.clock.advance(by: .seconds(1))
        guard case .sent = await registrar.sync() else {
            Issue.record("the registrar did not send after Retry-After")
            return
        }
        #expect(fixture.transport.requestCount == 2)
    }

    @Test func backoffSurvivesARestart() async throws {
        let fixture = RegistrationFixture([
            RegistrationFixture.error(429, "rate_limited", "slow down", headers: ["Retry-After": "300"]),
            RegistrationFixture.echo,
        ])
        defer { fixture.removeFiles() }
        guard case .deferred(let retryAt, _) = await (try fixture.registrar()).sync() else {
            Issue.record("a 429 was not deferred")
            return
        }
        let relaunched = try fixture.registrar()
        guard case .deferred(let stillAt, _) = await relaunched.sync() else {
            Issue.record("a relaunched registrar ignored the backoff")
            return
        }
        #expect(stillAt == retryAt)
        #expect(fixture.transport.requestCount == 1)
        fixture.clock.advance(by: .seconds(300))
        guard case .sent = await relaunched.sync() else {
            Issue.record("the relaunched registrar did not send after the backoff")
            return
        }
    }

    @Test func concurrentSyncsSendOnce() async throws {
        let slowEcho = ScriptedTransport.Step.handle { request in
            // Suspends mid-request so a second sync arrives while the first is in flight.
            for _ in 0..<10 { await Task.yield() }
            return RegistrationFixture.echoResponse(request)
        }
        let fixture = RegistrationFixture([slowEcho, slowEcho])
        defer { fixture.removeFiles() }
        let registrar = try fixture.registrar()
        try await registrar.login(userID: "user-1")
        async let first = registrar.sync()
        async let second = registrar.sync()
        let results: [SyncResult] = await [first, second]
        #expect(fixture.transport.requestCount == 1)
        #expect(fixture.transport.maximumConcurrentRequests == 1)
        #expect(results.contains(.unchanged))
    }

    @Test func syncUntilSettledSleepsOnTheClockThroughBackoff() async throws {
        let fixture = RegistrationFixture([.respond(status: 502), RegistrationFixture.echo])
        defer { fixture.removeFiles() }
        let registrar = try fixture.registrar()
        let task = Task { await registrar.syncUntilSettled() }
        while fixture.clock.sleeperCount == 0 { await Task.yield() }
        #expect(fixture.transport.requestCount == 1)
        fixture.clock.advance(by: .seconds(1))
        guard case .sent = await task.value else {
            Issue.record("syncUntilSettled did not end sent")
            return
        }
        #expect(fixture.transport.requestCount == 2)
    }

    @Test(arguments: [401, 403])
    func refusedKeyStopsUntilResumed(status: Int) async throws {
        let fixture = RegistrationFixture([
            RegistrationFixture.error(status, "invalid_key", "the key is not known"), RegistrationFixture.echo,
        ])
        defer { fixture.removeFiles() }
        let registrar = try fixture.registrar()
        let expected = RegistrationError.unauthorized(status: status, message: "the key is not known")
        #expect(await registrar.sync() == .failed(expected))
        fixture.clock.advance(by: .seconds(3600))
        await registrar.setPermission(.denied)
        #expect(await registrar.sync() == .failed(expected))
        #expect(fixture.transport.requestCount == 1)
        await registrar.resume()
        guard case .sent = await registrar.sync() else {
            Issue.record("a resumed registrar did not send")
            return
        }
    }

    @Test func refusedStateIsNotResentUntilItChanges() async throws {
        let fixture = RegistrationFixture([
            RegistrationFixture.error(400, "invalid_field", "timezone must be an IANA time zone such as Asia/Tokyo"),
            RegistrationFixture.echo,
        ])
        defer { fixture.removeFiles() }
        let registrar = try fixture.registrar()
        await registrar.update { $0.timezone = "Mars/Olympus" }
        let first = await registrar.sync()
        guard case .failed(.rejected(400, "invalid_field", let message)) = first else {
            Issue.record("a 400 did not fail the sync: \(first)")
            return
        }
        #expect(message.contains("IANA"))
        #expect(await registrar.sync() == first)
        #expect(fixture.transport.requestCount == 1)
        await registrar.update { $0.timezone = "Asia/Tokyo" }
        guard case .sent = await registrar.sync() else {
            Issue.record("the corrected state was not sent")
            return
        }
    }

    // MARK: Permission gating

    @Test(arguments: [nil, NotificationPermission.denied, .notDetermined])
    func withoutPermissionAlertTokensAreNotSent(permission: NotificationPermission?) async throws {
        let fixture = RegistrationFixture(RegistrationFixture.echoes(2))
        defer { fixture.removeFiles() }
        let registrar = try fixture.registrar()
        if let permission { await registrar.setPermission(permission) }
        try await registrar.setAPNsToken(RegistrationFixture.token(0xAB))
        try await registrar.setFCMToken("fcm-token")
        try await registrar.setVoIPToken(RegistrationFixture.token(0xCD))
        try await registrar.login(userID: "user-1")
        await registrar.sync()
        let body = try fixture.body(0)
        #expect(body["apns_token"] == .null)
        #expect(body["fcm_token"] == .null)
        #expect(body["voip_token"]?.stringValue == RegistrationFixture.hex(0xCD))
        #expect(body["user_id"] == "user-1")

        // Permission granted later: the tokens go out with the next sync.
        await registrar.setPermission(.provisional)
        await registrar.sync()
        let granted = try fixture.body(1)
        #expect(granted["apns_token"]?.stringValue == RegistrationFixture.hex(0xAB))
        #expect(granted["fcm_token"] == "fcm-token")
    }

    @Test func alwaysAllowTokenRegistrationSendsTokensWithoutPermission() async throws {
        let fixture = RegistrationFixture(RegistrationFixture.echoes(1))
        defer { fixture.removeFiles() }
        let registrar = try fixture.registrar { $0.alwaysAllowTokenRegistration = true }
        await registrar.setPermission(.denied)
        try await registrar.setAPNsToken(RegistrationFixture.token(0xAB))
        await registrar.sync()
        let body = try fixture.body(0)
        #expect(body["apns_token"]?.stringValue == RegistrationFixture.hex(0xAB))
        #expect(body["permission"] == "denied")
    }

    // MARK: Login, logout, unregister, fetch

    @Test func logoutKeepsTheTokenAndSendsNullUser() async throws {
        let fixture = RegistrationFixture(RegistrationFixture.echoes(2))
        defer { fixture.removeFiles() }
        let registrar = try fixture.registrar()
        await registrar.setPermission(.authorized)
        try await registrar.setAPNsToken(RegistrationFixture.token(0xAB))
        try await registrar.login(userID: "user-1")
        await registrar.sync()
        await registrar.logout()
        await registrar.sync()
        let body = try fixture.body(1)
        #expect(body["user_id"] == .null)
        #expect(body["apns_token"]?.stringValue == RegistrationFixture.hex(0xAB))
        #expect(await registrar.userID == nil)
    }

    @Test(arguments: ["", String(repeating: "u", count: 257)])
    func invalidUserIDIsRefusedLocally(userID: String) async throws {
        let fixture = RegistrationFixture()
        defer { fixture.removeFiles() }
        let registrar = try fixture.registrar()
        await #expect {
            try await registrar.login(userID: userID)
        } throws: { error in
            (error as? RegistrationError)?.code == "invalid_user_id"
        }
        #expect(await registrar.userID == nil)
    }

    @Test(arguments: TokenType.allCases)
    func unregisterSendsDeleteAndStopsSendingTheToken(type: TokenType) async throws {
        let fixture = RegistrationFixture([RegistrationFixture.echo])
        defer { fixture.removeFiles() }
        let registrar = try fixture.registrar()
        await registrar.setPermission(.authorized)
        try await registrar.setAPNsToken(RegistrationFixture.token(0x0A))
        try await registrar.setVoIPToken(RegistrationFixture.token(0x0B))
        try await registrar.setFCMToken("fcm-token")
        await registrar.sync()
        // The server answers the installation without the token.
        var answer = try fixture.body(0).objectValue ?? [:]
        answer["\(type.rawValue)_token"] = .null
        answer["installation_id"] = .string(RegistrationFixture.installationID.uuidString.lowercased())
        fixture.transport.enqueue(.respond(status: 200, body: try JSONValue.object(answer).serialized()))

        let installation = try await registrar.unregister(type)
        #expect(installation?.state.token(type) == nil)
        let request = fixture.transport.requests[1]
        #expect(request.method == "DELETE")
        #expect(request.url.path == fixture.installationPath + "/tokens/\(type.rawValue)")
        #expect(request.body.isEmpty)
        #expect(await registrar.desiredState.token(type) == nil)
        // The server already matches: nothing left to send.
        #expect(await registrar.sync() == .unchanged)
        #expect(fixture.transport.requestCount == 2)
    }

    @Test func unregisterThatFailsClearsTheTokenWithTheNextSync() async throws {
        let fixture = RegistrationFixture([RegistrationFixture.echo, .fail(.connectionFailed())])
        defer { fixture.removeFiles() }
        let registrar = try fixture.registrar()
        await registrar.setPermission(.authorized)
        try await registrar.setAPNsToken(RegistrationFixture.token(0x0A))
        await registrar.sync()
        await #expect(throws: RegistrationError.transport(.connectionFailed())) {
            try await registrar.unregister(.apns)
        }
        fixture.transport.enqueue(RegistrationFixture.echo)
        guard case .sent = await registrar.sync() else {
            Issue.record("the cleared token was not sent")
            return
        }
        #expect(try fixture.body(2)["apns_token"] == .null)
    }

    @Test func fetchReadsTheServersView() async throws {
        let fixture = RegistrationFixture([
            .respond(
                status: 200,
                text: """
                    {"installation_id":"6f1a2b3c-4d5e-4f60-8172-93a4b5c6d7e8","platform":"ios",\
                    "apns_token":"\(RegistrationFixture.hex(0xAB))","user_id":"user-1","permission":"authorized",\
                    "consents":{"notifications":true,"ads":null,"night_ads":false},"created_at":1800000000000,\
                    "updated_at":1800000001000}
                    """),
            RegistrationFixture.error(404, "not_found", "there is no installation"),
        ])
        defer { fixture.removeFiles() }
        let registrar = try fixture.registrar()
        let installation = try await registrar.fetchInstallation()
        #expect(fixture.transport.requests[0].method == "GET")
        #expect(fixture.transport.requests[0].url.path == fixture.installationPath)
        #expect(installation.state.apnsToken?.value == RegistrationFixture.hex(0xAB))
        #expect(installation.state.userID == "user-1")
        #expect(installation.state.consents == .init(notifications: true, ads: nil, nightAds: false))
        #expect(installation.updatedAt == Date(millisecondsSince1970: 1_800_000_001_000))
        await #expect(throws: RegistrationError.notFound(message: "there is no installation")) {
            try await registrar.fetchInstallation()
        }
    }
}
