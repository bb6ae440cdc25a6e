import Foundation
import Testing
import Tidings
import TidingsTesting

/// Verified identity: the user token on the syncs that bind the user and on tag calls, the provider asked
/// once when the server refuses a token, and failures that are typed, keep the state and do not hammer.
@Suite struct UserTokenTests {
    /// A token provider that counts its calls and answers `token-<n>` or throws, as the test says.
    final class CountingProvider: Sendable {
        struct Offline: Error, CustomStringConvertible {
            var description: String { "the backend is unreachable" }
        }

        private let state = LockedBox<(calls: [String], failing: Bool)>(([], false))

        init(failing: Bool = false) {
            state.withLock { $0.failing = failing }
        }

        var calls: [String] { state.withLock { $0.calls } }
        var failing: Bool {
            get { state.withLock { $0.failing } }
            set { state.withLock { $0.failing = newValue } }
        }

        var provider: UserTokenProvider {
            { userID in try self.token(for: userID) }
        }

        private func token(for userID: String) throws -> String {
            try state.withLock { state in
                state.calls.append(userID)
                if state.failing { throw Offline() }
                return "token-\(state.calls.count)"
            }
        }
    }

    static let header = InstallationRegistrar.userTokenHeader

    @Test(arguments: ["identity_token_expired", "identity_token_required", "identity_token_invalid"])
    func refusedTokenAsksTheProviderOnceAndRetries(code: String) async throws {
        let fixture = RegistrationFixture([
            RegistrationFixture.error(401, code, "the user token is not accepted"), RegistrationFixture.echo,
        ])
        defer { fixture.removeFiles() }
        let provider = CountingProvider()
        let registrar = try fixture.registrar()
        await registrar.setUserTokenProvider(provider.provider)
        try await registrar.login(userID: "user-1", userToken: "stale")
        guard case .sent(let installation) = await registrar.sync() else {
            Issue.record("the retry with a fresh token did not register")
            return
        }
        #expect(installation.state.userID == "user-1")
        #expect(provider.calls == ["user-1"])
        let requests = fixture.transport.requests
        #expect(requests.count == 2)
        #expect(requests[0].header(Self.header) == "stale")
        #expect(requests[1].header(Self.header) == "token-1")
        #expect(try fixture.body(1)["user_id"] == "user-1")
        #expect(await registrar.sync() == .unchanged)
    }

    @Test func providerThatThrowsFailsTypedKeepsTheStateAndDoesNotHammer() async throws {
        let fixture = RegistrationFixture([
            RegistrationFixture.error(401, "identity_token_expired", "expired"), RegistrationFixture.echo,
        ])
        defer { fixture.removeFiles() }
        let provider = CountingProvider(failing: true)
        let registrar = try fixture.registrar()
        await registrar.setUserTokenProvider(provider.provider)
        try await registrar.setAPNsToken(RegistrationFixture.token(0xAB))
        try await registrar.login(userID: "user-1", userToken: "expired")
        let expected = RegistrationError.userTokenUnavailable(userID: "user-1", message: "the backend is unreachable")
        #expect(await registrar.sync() == .failed(expected))
        #expect(expected.code == "user_token_unavailable")
        #expect(provider.calls == ["user-1"])
        #expect(fixture.transport.requestCount == 1)
        #expect(await registrar.userID == "user-1")
        #expect(await registrar.desiredState.apnsToken?.value == RegistrationFixture.hex(0xAB))

        // Syncs before the backoff ends neither ask the provider nor send.
        #expect(await registrar.sync() == .failed(expected))
        #expect(await registrar.sync(force: true) == .failed(expected))
        #expect(provider.calls.count == 1)
        #expect(fixture.transport.requestCount == 1)

        // A later sync tries again: the provider answers now and the state goes out whole.
        provider.failing = false
        fixture.clock.advance(by: .seconds(1))
        guard case .sent = await registrar.sync() else {
            Issue.record("a later sync did not try again")
            return
        }
        #expect(provider.calls.count == 2)
        #expect(fixture.transport.requests[1].header(Self.header) == "token-2")
        #expect(try fixture.body(1)["apns_token"] == .null)  // no permission: alert tokens wait
        #expect(try fixture.body(1)["user_id"] == "user-1")
    }

    @Test func freshTokenRefusedAgainFailsTypedAndALaterSyncTriesAgain() async throws {
        let fixture = RegistrationFixture([
            RegistrationFixture.error(401, "identity_token_expired", "expired"),
            RegistrationFixture.error(401, "identity_token_expired", "still expired"),
        ])
        defer { fixture.removeFiles() }
        let provider = CountingProvider()
        let registrar = try fixture.registrar()
        await registrar.setUserTokenProvider(provider.provider)
        try await registrar.login(userID: "user-1", userToken: "old")
        let expected = RegistrationError.userTokenRefused(
            status: 401, serverCode: "identity_token_expired", message: "still expired")
        #expect(await registrar.sync() == .failed(expected))
        #expect(provider.calls.count == 1)
        #expect(fixture.transport.requestCount == 2)
        #expect(await registrar.sync() == .failed(expected))
        #expect(fixture.transport.requestCount == 2)

        fixture.clock.advance(by: .seconds(1))
        fixture.transport.enqueue(RegistrationFixture.echo)
        guard case .sent = await registrar.sync() else {
            Issue.record("a later sync did not try again")
            return
        }
        // The refused token is not reused: the provider is asked for another.
        #expect(provider.calls.count == 2)
        #expect(fixture.transport.requests[2].header(Self.header) == "token-2")
    }

    @Test func invalidTokenStopsUntilTheStateChanges() async throws {
        let fixture = RegistrationFixture([
            RegistrationFixture.error(401, "identity_token_invalid", "bad signature"),
            RegistrationFixture.error(401, "identity_token_invalid", "bad signature"),
        ])
        defer { fixture.removeFiles() }
        let provider = CountingProvider()
        let registrar = try fixture.registrar()
        await registrar.setUserTokenProvider(provider.provider)
        try await registrar.login(userID: "user-1")
        guard case .failed(.userTokenRefused(401, "identity_token_invalid", _)) = await registrar.sync() else {
            Issue.record("an invalid token did not fail the sync")
            return
        }
        // Asked before the first request (no token in memory) and once after the refusal.
        #expect(provider.calls.count == 2)
        #expect(fixture.transport.requestCount == 2)

        fixture.clock.advance(by: .seconds(24 * 3600))
        guard case .failed = await registrar.sync() else {
            Issue.record("an invalid token was tried again without a change")
            return
        }
        #expect(fixture.transport.requestCount == 2)
        #expect(provider.calls.count == 2)

        await registrar.setConsents(.init(notifications: true))
        fixture.transport.enqueue(RegistrationFixture.echo)
        guard case .sent = await registrar.sync() else {
            Issue.record("the changed state was not sent")
            return
        }
        #expect(provider.calls.count == 3)
        #expect(fixture.transport.requests[2].header(Self.header) == "token-3")
    }

    @Test func refusedTokenWithoutAProviderWaitsForANewToken() async throws {
        let fixture = RegistrationFixture([
            RegistrationFixture.error(401, "identity_token_expired", "expired"), RegistrationFixture.echo,
        ])
        defer { fixture.removeFiles() }
        let registrar = try fixture.registrar()
        try await registrar.login(userID: "user-1", userToken: "old")
        guard case .failed(.userTokenRefused(401, "identity_token_expired", _)) = await registrar.sync() else {
            Issue.record("an expired token did not fail the sync")
            return
        }
        fixture.clock.advance(by: .seconds(3600))
        guard case .failed = await registrar.sync() else {
            Issue.record("the expired token was sent again")
            return
        }
        #expect(fixture.transport.requestCount == 1)
        try await registrar.login(userID: "user-1", userToken: "new")
        guard case .sent = await registrar.sync() else {
            Issue.record("the new token was not sent")
            return
        }
        #expect(fixture.transport.requests[1].header(Self.header) == "new")
    }

    @Test func tokenGoesOnlyWithSyncsThatSetChangeOrClearTheUser() async throws {
        let fixture = RegistrationFixture(RegistrationFixture.echoes(5))
        defer { fixture.removeFiles() }
        let registrar = try fixture.registrar()
        await registrar.sync()
        try await registrar.login(userID: "user-1", userToken: "token-of-1")
        await registrar.sync()
        await registrar.setPermission(.authorized)
        await registrar.sync()
        try await registrar.login(userID: "user-2", userToken: "token-of-2")
        await registrar.sync()
        await registrar.logout()
        await registrar.sync()
        let headers = fixture.transport.requests.map { $0.header(Self.header) }
        // Registered anonymous, bound user-1, unchanged user, changed to user-2, cleared (proven by user-2).
        #expect(headers == [nil, "token-of-1", nil, "token-of-2", "token-of-2"])
        #expect(try fixture.body(4)["user_id"] == .null)
    }

    @Test func loginWithoutATokenSendsNoneUnlessTheProviderGivesOne() async throws {
        let fixture = RegistrationFixture(RegistrationFixture.echoes(2))
        defer { fixture.removeFiles() }
        let registrar = try fixture.registrar()
        try await registrar.login(userID: "user-1")
        await registrar.sync()
        #expect(fixture.transport.requests[0].header(Self.header) == nil)

        // After a restart nothing is in memory: the provider is asked when the binding changes.
        let provider = CountingProvider()
        let relaunched = try fixture.registrar()
        await relaunched.setUserTokenProvider(provider.provider)
        try await relaunched.login(userID: "user-2")
        await relaunched.sync()
        #expect(provider.calls == ["user-2"])
        #expect(fixture.transport.requests[1].header(Self.header) == "token-1")
    }

    @Test func aRecordWrittenBeforeUserTokensAsksForNone() async throws {
        let fixture = RegistrationFixture(RegistrationFixture.echoes(2))
        defer { fixture.removeFiles() }
        // What an SDK without user tokens left behind: user-1 acknowledged, no acknowledged user noted.
        let record: JSONValue = [
            "version": 1, "desired": InstallationState(userID: "user-1").requestBody(),
            "acknowledged_fingerprint": "0123456789abcdef", "acknowledged_at": 1_800_000_000_000,
            "consecutive_failures": 0, "not_before": nil,
        ]
        try FileManager.default.createDirectory(at: fixture.directory, withIntermediateDirectories: true)
        try record.serializedData(sortedKeys: true).write(
            to: fixture.directory.appendingPathComponent("tidings-registration.json"))
        let provider = CountingProvider()
        let registrar = try fixture.registrar()
        await registrar.setUserTokenProvider(provider.provider)
        guard case .sent = await registrar.sync() else {
            Issue.record("the upgraded record was not sent")
            return
        }
        #expect(provider.calls.isEmpty)
        #expect(fixture.transport.requests[0].header(Self.header) == nil)

        // A real change of user after the upgrade does carry a token.
        try await registrar.login(userID: "user-2")
        await registrar.sync()
        #expect(provider.calls == ["user-2"])
        #expect(fixture.transport.requests[1].header(Self.header) == "token-1")
    }

    @Test func theTokenIsNeverWrittenToDisk() async throws {
        let fixture = RegistrationFixture([RegistrationFixture.created(secret: RegistrationFixture.secret("Q"))])
        defer { fixture.removeFiles() }
        let registrar = try fixture.registrar()
        let token = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ1c2VyLTEifQ.c2lnbmF0dXJl"
        try await registrar.login(userID: "user-1", userToken: token)
        await registrar.sync()
        #expect(fixture.transport.requests[0].header(Self.header) == token)
        let files = try FileManager.default.contentsOfDirectory(atPath: fixture.directory.path)
        #expect(!files.isEmpty)
        for file in files {
            let data = try Data(contentsOf: fixture.directory.appendingPathComponent(file))
            #expect(!String(decoding: data, as: UTF8.self).contains("c2lnbmF0dXJl"), "\(file) holds the token")
        }
    }

    // MARK: Tag calls

    @Test func tagCallsCarryTheUserToken() async throws {
        let fixture = RegistrationFixture([
            RegistrationFixture.echo, .respond(status: 200, text: #"{"user_id":"user-1","tags":["news"]}"#),
        ])
        defer { fixture.removeFiles() }
        let registrar = try fixture.registrar()
        try await registrar.login(userID: "user-1", userToken: "token-of-1")
        #expect(try await TagClient(registrar: registrar).add(["news"]) == ["news"])
        let request = fixture.transport.requests[1]
        #expect(request.method == "POST")
        #expect(request.header(Self.header) == "token-of-1")
        #expect(request.header("X-Tidings-Installation") == RegistrationFixture.installationID.uuidString.lowercased())
    }

    @Test func tagCallWithAnExpiredTokenAsksTheProviderOnce() async throws {
        let fixture = RegistrationFixture([
            RegistrationFixture.echo, RegistrationFixture.error(401, "identity_token_expired", "expired"),
            .respond(status: 200, text: #"{"user_id":"user-1","tags":["news"]}"#),
            RegistrationFixture.error(401, "identity_token_expired", "expired"),
            RegistrationFixture.error(401, "identity_token_expired", "expired again"),
        ])
        defer { fixture.removeFiles() }
        let provider = CountingProvider()
        let registrar = try fixture.registrar()
        await registrar.setUserTokenProvider(provider.provider)
        try await registrar.login(userID: "user-1", userToken: "old")
        let tags = TagClient(registrar: registrar)
        #expect(try await tags.get() == ["news"])
        #expect(provider.calls == ["user-1"])
        #expect(fixture.transport.requests[1].header(Self.header) == "old")
        #expect(fixture.transport.requests[2].header(Self.header) == "token-1")

        // Refused twice: typed, after exactly one more provider call.
        await #expect(
            throws: RegistrationError.userTokenRefused(
                status: 401, serverCode: "identity_token_expired", message: "expired again")
        ) {
            try await tags.get()
        }
        #expect(provider.calls.count == 2)
        #expect(fixture.transport.requestCount == 5)
    }

    @Test func tagCallWhoseProviderThrowsFailsTyped() async throws {
        let fixture = RegistrationFixture([
            RegistrationFixture.echo, RegistrationFixture.error(401, "identity_token_required", "token needed"),
        ])
        defer { fixture.removeFiles() }
        let provider = CountingProvider()
        let registrar = try fixture.registrar()
        try await registrar.login(userID: "user-1")
        await registrar.sync()
        provider.failing = true
        await registrar.setUserTokenProvider(provider.provider)
        await #expect(
            throws: RegistrationError.userTokenUnavailable(userID: "user-1", message: "the backend is unreachable")
        ) {
            try await TagClient(registrar: registrar).get()
        }
        #expect(provider.calls == ["user-1"])
        #expect(fixture.transport.requestCount == 1)
    }
}
