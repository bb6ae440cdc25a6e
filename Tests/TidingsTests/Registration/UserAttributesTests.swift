import Foundation
import Testing
import Tidings
import TidingsServer
import TidingsStore
import TidingsTesting

/// User profile attributes from the SDK: checked at the call, kept in the registration record, and sent by a
/// sync (`PATCH /v1/users/{user_id}/attributes`, as the installation with its secret and the user token) once
/// the server has the installation bound to the user they were made for, never to another user.
@Suite struct UserAttributesTests {
    /// Answers every request as the server does: the installation echoed for a `PUT`, a profile for a `PATCH`.
    static let server: ScriptedTransport.Step = .handle { request in
        guard request.method == "PATCH" else { return RegistrationFixture.echoResponse(request) }
        let json: JSONValue = ["attributes": .object([:]), "updated_at": 1]
        return TransportResponse(
            status: 200, headers: ["Content-Type": "application/json"], body: (try? json.serialized()) ?? [])
    }

    static func fixture() -> RegistrationFixture {
        let fixture = RegistrationFixture()
        fixture.transport.setWhenExhausted(server)
        return fixture
    }

    /// `method path` of each request so far.
    static func calls(_ fixture: RegistrationFixture) -> [String] {
        fixture.transport.requests.map { "\($0.method) \($0.url.path)" }
    }

    @Test func nobodyLoggedInIsATypedErrorAndQueuesNothing() async throws {
        let fixture = Self.fixture()
        defer { fixture.removeFiles() }
        let registrar = try fixture.registrar()
        await #expect(throws: RegistrationError.notLoggedIn) {
            try await registrar.setUserAttributes(["plan": .string("pro")])
        }
        await registrar.sync()
        #expect(Self.calls(fixture).allSatisfy { !$0.contains("/v1/users/") })
    }

    @Test func badKeysValuesAndTooManyAreRefusedNamingTheLimit() async throws {
        let fixture = Self.fixture()
        defer { fixture.removeFiles() }
        let registrar = try fixture.registrar()
        try await registrar.login(userID: "alice")
        let refusals: [([String: AttributeValue?], String, String)] = [
            (["first-name": .string("x")], "first-name", "1 to 64 characters"),
            (["bio": .string(String(repeating: "x", count: 257))], "bio", "at most 256 bytes"),
            (["gone-key": nil], "gone-key", "1 to 64 characters"),
            (
                Dictionary(uniqueKeysWithValues: (1...51).map { ("k\($0)", AttributeValue?.some(.number(1))) }),
                "k1", "the limit is 50 per user"
            ),
        ]
        for (changes, key, message) in refusals {
            await #expect {
                try await registrar.setUserAttributes(changes)
            } throws: { error in
                guard case .invalidAttribute(let named, let text)? = error as? RegistrationError else { return false }
                return named == key && text.contains(message)
            }
        }
        #expect(await registrar.pendingUserAttributes.isEmpty, "a refused call queues nothing")

        // Across calls too: the queue for one user never holds more than a profile may.
        try await registrar.setUserAttributes(
            Dictionary(uniqueKeysWithValues: (1...50).map { ("k\($0)", AttributeValue?.some(.number(1))) }))
        await #expect(throws: RegistrationError.self) { try await registrar.setUserAttribute("k51", .bool(true)) }
        try await registrar.setUserAttribute("k50", .bool(true))
        #expect(await registrar.pendingUserAttributes.count == 50)
    }

    @Test func aSyncSendsTheChangesAfterTheBindingWithTheSecretAndTheUserToken() async throws {
        let fixture = Self.fixture()
        defer { fixture.removeFiles() }
        let registrar = try fixture.registrar()
        try await registrar.login(userID: "alice", userToken: "token-of-alice")
        try await registrar.setUserAttributes(["plan": .string("pro"), "trial_ends_at": nil])
        try await registrar.setUserAttribute("seats", .number(3))
        try await registrar.setUserAttribute("plan", .string("team"))
        #expect(
            await registrar.pendingUserAttributes == [
                "plan": .string("team"), "trial_ends_at": nil, "seats": .number(3),
            ])

        guard case .sent = await registrar.sync() else { Issue.record("the installation was not sent"); return }
        #expect(Self.calls(fixture) == ["PUT \(fixture.installationPath)", "PATCH /v1/users/alice/attributes"])
        let patch = try #require(fixture.transport.requests.last)
        #expect(try JSONValue.parse(patch.body) == ["plan": "team", "trial_ends_at": nil, "seats": 3])
        #expect(patch.header("X-Tidings-User-Token") == "token-of-alice")
        #expect(patch.header("X-Tidings-Installation") == RegistrationFixture.installationID.uuidString.lowercased())
        #expect(await registrar.pendingUserAttributes.isEmpty)

        // Nothing left: the next sync sends nothing more.
        await registrar.sync()
        #expect(fixture.transport.requestCount == 2)
    }

    /// Offline, then the app killed and launched again: the changes are still queued and go out then.
    @Test func changesSurviveAnOfflineSpellAndARestart() async throws {
        let fixture = Self.fixture()
        defer { fixture.removeFiles() }
        let first = try fixture.registrar()
        try await first.login(userID: "alice")
        await first.sync()
        fixture.transport.setWhenExhausted(.fail(.connectionFailed("offline")))
        try await first.setUserAttributes(["plan": .string("pro")])
        await first.sync()
        #expect(await first.pendingUserAttributes == ["plan": .string("pro")], "kept after a failed send")

        fixture.transport.setWhenExhausted(Self.server)
        let relaunched = try fixture.registrar()
        #expect(await relaunched.pendingUserAttributes == ["plan": .string("pro")])
        let before = fixture.transport.requestCount
        await relaunched.sync()
        #expect(Array(Self.calls(fixture).dropFirst(before)) == ["PATCH /v1/users/alice/attributes"])
        #expect(await relaunched.pendingUserAttributes.isEmpty)
        let reread = try fixture.registrar()
        #expect(await reread.pendingUserAttributes.isEmpty, "the record on disk forgot them too")
    }

    /// Alice's changes, then a switch to Bob, all offline: Alice's go out while the server still has her
    /// bound, then Bob is bound, then his.
    @Test func aUserSwitchWaitsForThePreviousUsersChanges() async throws {
        let fixture = Self.fixture()
        defer { fixture.removeFiles() }
        let registrar = try fixture.registrar()
        try await registrar.login(userID: "alice")
        await registrar.sync()
        try await registrar.setUserAttribute("plan", .string("pro"))
        await registrar.logout()
        try await registrar.login(userID: "bob")
        #expect(await registrar.pendingUserAttributes.isEmpty, "bob has no changes yet")
        try await registrar.setUserAttribute("plan", .string("free"))
        await registrar.sync()
        #expect(
            Self.calls(fixture) == [
                "PUT \(fixture.installationPath)", "PATCH /v1/users/alice/attributes",
                "PUT \(fixture.installationPath)", "PATCH /v1/users/bob/attributes",
            ])
        #expect(try fixture.body(1) == ["plan": "pro"])
        #expect(try fixture.body(2)["user_id"] == "bob")
        #expect(try fixture.body(3) == ["plan": "free"])
    }

    /// Changes made for a user the server never had bound here, who is no longer logged in, can prove nothing:
    /// they are dropped, and never sent to the next user.
    @Test func changesOfAUserNeverBoundAreDroppedNotSentToAnother() async throws {
        let fixture = Self.fixture()
        defer { fixture.removeFiles() }
        let registrar = try fixture.registrar()
        try await registrar.login(userID: "alice")
        try await registrar.setUserAttribute("plan", .string("pro"))
        try await registrar.login(userID: "bob")
        await registrar.sync()
        #expect(Self.calls(fixture) == ["PUT \(fixture.installationPath)"])
        #expect(try fixture.body(0)["user_id"] == "bob")
        #expect(await registrar.userAttributesRefusal == .notLoggedIn)
        await registrar.sync()
        #expect(fixture.transport.requestCount == 1)
    }

    @Test func aRefusedChangeIsDroppedAndReportedAndABusyServerRetried() async throws {
        let fixture = Self.fixture()
        defer { fixture.removeFiles() }
        let registrar = try fixture.registrar()
        try await registrar.login(userID: "alice")
        await registrar.sync()

        try await registrar.setUserAttribute("plan", .string("pro"))
        fixture.transport.enqueue(RegistrationFixture.error(503, "unavailable", "try later"))
        await registrar.sync()
        #expect(await registrar.pendingUserAttributes == ["plan": .string("pro")], "a busy server: kept")
        fixture.transport.enqueue(RegistrationFixture.error(401, "unauthorized", "the key was revoked"))
        await registrar.sync()
        #expect(await registrar.pendingUserAttributes == ["plan": .string("pro")], "a refused key: kept")
        await registrar.sync()
        #expect(Self.calls(fixture).filter { $0.hasPrefix("PATCH") }.count == 3)
        #expect(await registrar.pendingUserAttributes.isEmpty)

        try await registrar.setUserAttribute("k50", .bool(true))
        let limit = "the user would have 51 attributes; the limit is 50 per user"
        fixture.transport.enqueue(RegistrationFixture.error(400, "too_many_attributes", limit))
        await registrar.sync()
        #expect(await registrar.pendingUserAttributes.isEmpty, "a refusal cannot succeed later: dropped")
        let refusal = await registrar.userAttributesRefusal
        #expect(refusal?.message.contains("the limit is 50 per user") == true, "\(String(describing: refusal))")
        await registrar.sync()
        #expect(Self.calls(fixture).filter { $0.hasPrefix("PATCH") }.count == 4)

        // The installation is no longer the user's on the server (logged out elsewhere): dropped.
        try await registrar.setUserAttribute("plan", .string("team"))
        let forbidden = "the calling installation is not logged in as this user"
        fixture.transport.enqueue(RegistrationFixture.error(403, "forbidden", forbidden))
        await registrar.sync()
        #expect(await registrar.pendingUserAttributes.isEmpty)
        #expect(await registrar.userAttributesRefusal == .unauthorized(status: 403, message: forbidden))
    }

    /// Against the real server API, in process: the profile changes, and a journey triggered by the attribute
    /// gets its signal for the user.
    @Test func theServerAppliesTheChangesToTheUsersProfileAndSignalsItsJourneys() async throws {
        let fixture = RegistrationFixture()
        defer { fixture.removeFiles() }
        try FileManager.default.createDirectory(at: fixture.directory, withIntermediateDirectories: true)
        let store = try SQLiteStore(path: fixture.directory.appendingPathComponent("server.sqlite").path)
        var apiConfiguration = TidingsAPI.Configuration()
        apiConfiguration.keyCacheSeconds = 0
        let api = TidingsAPI(store: store, configuration: apiConfiguration, clock: fixture.clock, logger: .disabled())
        let now = fixture.clock.now.millisecondsSince1970
        try store.createApp(AppRecord(id: "app_main", name: "main", bundleID: "com.example.main", createdAt: now))
        let appKey = APIKeySecret.issue(appID: "app_main", kind: .app, now: now)
        let serverKey = APIKeySecret.issue(appID: "app_main", kind: .server, now: now)
        try store.createKey(appKey.record)
        try store.createKey(serverKey.record)
        let transport = InProcessTransport(handler: api.router.handler)

        let journey: JSONValue = [
            "name": "Upgraded", "trigger": ["attribute": "user.plan", "becomes": "pro"],
            "steps": [["id": "hi", "type": "send", "message": ["content": ["title": "Welcome to Pro"]]]],
        ]
        var request = TransportRequest(
            method: "POST", url: URL(string: "https://push.example.com/v1/journeys")!,
            headers: ["Authorization": "Bearer \(serverKey.secret)", "Content-Type": "application/json"],
            body: try journey.serialized(), timeout: .seconds(5))
        let created = try await transport.send(request)
        let id = try #require(try JSONValue.parse(created.body)["journey_id"]?.stringValue)
        request.url = URL(string: "https://push.example.com/v1/journeys/\(id)/start")!
        request.body = []
        #expect(try await transport.send(request).status == 200)

        let registrar = try InstallationRegistrar(
            configuration: InstallationRegistrar.Configuration(
                endpoint: RegistrationFixture.endpoint, appKey: appKey.secret,
                containerDirectory: fixture.directory.appendingPathComponent("container")),
            transport: transport, clock: fixture.clock, random: FixedRandomNumberGenerator(value: 0))
        try await registrar.login(userID: "alice")
        try await registrar.setUserAttributes(["plan": .string("pro"), "seats": .number(3)])
        guard case .sent = await registrar.sync() else { Issue.record("the installation was not sent"); return }
        #expect(await registrar.pendingUserAttributes.isEmpty)
        #expect(await registrar.userAttributesRefusal == nil)
        let profile = try store.userProfile(appID: "app_main", userID: "alice")
        #expect(profile?.attributes == ["plan": .string("pro"), "seats": .number(3)])
        let signals = try store.journeySignals(limit: 10)
        #expect(signals.map(\.name) == ["user.plan"])
        #expect(signals.first?.userID == "alice")

        try await registrar.removeUserAttribute("seats")
        await registrar.sync()
        #expect(try store.userProfile(appID: "app_main", userID: "alice")?.attributes == ["plan": .string("pro")])
        #expect(try store.journeySignals(limit: 10).count == 1, "seats is no journey's trigger")
    }
}
