import Foundation
import Testing
import Tidings
import TidingsServer
import TidingsStore
import TidingsTesting

/// The registrar and tag client against the real server API, in process: no scripted answers.
@Suite struct RegistrationEndToEndTests {
    @Test func registerLoginTagFetchLogoutAgainstTheServer() async throws {
        let fixture = RegistrationFixture()
        defer { fixture.removeFiles() }
        try FileManager.default.createDirectory(at: fixture.directory, withIntermediateDirectories: true)
        let store = try SQLiteStore(path: fixture.directory.appendingPathComponent("server.sqlite").path)
        var apiConfiguration = TidingsAPI.Configuration()
        apiConfiguration.keyCacheSeconds = 0
        let api = TidingsAPI(store: store, configuration: apiConfiguration, clock: fixture.clock, logger: .disabled())
        let now = fixture.clock.now.millisecondsSince1970
        try store.createApp(AppRecord(id: "app_main", name: "main", bundleID: "com.example.main", createdAt: now))
        let key = APIKeySecret.issue(appID: "app_main", kind: .app, now: now)
        try store.createKey(key.record)

        let transport = InProcessTransport(handler: api.router.handler)
        let registrar = try InstallationRegistrar(
            configuration: InstallationRegistrar.Configuration(
                endpoint: RegistrationFixture.endpoint, appKey: key.secret,
                containerDirectory: fixture.directory.appendingPathComponent("container")),
            transport: transport, clock: fixture.clock, random: FixedRandomNumberGenerator(value: 0))
        let installationID = registrar.identity.installationID

        // Register with permission, a token and device facts.
        await registrar.setPermission(.authorized)
        await registrar.setEnvironment(.sandbox)
        await registrar.setConsents(.init(notifications: true, ads: false, nightAds: false))
        try await registrar.setAPNsToken(RegistrationFixture.token(0xAB))
        await registrar.update {
            $0.locale = "ja_JP"
            $0.country = "jp"
            $0.timezone = "Asia/Tokyo"
            $0.appVersion = "2.0"
            $0.deviceModel = "iPhone15,2"
        }
        guard case .sent(let registered) = await registrar.sync() else {
            Issue.record("the server did not take the installation")
            return
        }
        #expect(registered.installationID == installationID)
        #expect(registered.state.country == "JP")
        #expect(await registrar.sync() == .unchanged)

        // Log in and tag; the tag client syncs the login first, so the server lets the app key tag.
        try await registrar.login(userID: "user-42")
        let tags = TagClient(registrar: registrar)
        #expect(try await tags.add(["plan:pro", "news"]) == ["news", "plan:pro"])
        #expect(try await tags.set(["news", "vip"]) == ["news", "vip"])
        #expect(try await tags.remove(["vip"]) == ["news"])
        #expect(try await tags.get() == ["news"])
        await #expect {
            try await tags.add(Set((0..<17).map { "t\($0)" }))
        } throws: { error in
            guard case .limitExceeded(let message)? = error as? RegistrationError else { return false }
            return message.contains("16")
        }
        #expect(try store.tags(appID: "app_main", userID: "user-42") == ["news"])

        // The server's view, through the API and in its store.
        let fetched = try await registrar.fetchInstallation()
        #expect(fetched.state.userID == "user-42")
        #expect(fetched.state.apnsToken?.value == RegistrationFixture.hex(0xAB))
        #expect(fetched.state.permission == .authorized)

        // Logout keeps the token; tags are then refused locally.
        await registrar.logout()
        guard case .sent = await registrar.sync() else {
            Issue.record("the logout was not sent")
            return
        }
        await #expect(throws: RegistrationError.notLoggedIn) { try await tags.get() }
        let stored = try #require(try store.installation(appID: "app_main", installationID: installationID))
        #expect(stored.userID == nil)
        #expect(stored.apnsToken == RegistrationFixture.hex(0xAB))
        #expect(stored.environment == "sandbox")
        #expect(stored.consents == Installation.Consents(notifications: true, ads: false, nightAds: false))
        #expect(stored.timezone == "Asia/Tokyo")
        #expect(stored.deviceModel == "iPhone15,2")

        // Unregistering the token removes it on the server and the next sync has nothing to add.
        let afterUnregister = try await registrar.unregister(.apns)
        #expect(afterUnregister?.state.apnsToken == nil)
        #expect(try store.installation(appID: "app_main", installationID: installationID)?.apnsToken == nil)
        #expect(await registrar.sync() == .unchanged)

        // A state the server refuses comes back typed with the server's message.
        await registrar.update { $0.timezone = "Mars/Olympus" }
        guard case .failed(.rejected(400, "invalid_field", let message)) = await registrar.sync() else {
            Issue.record("the server accepted a bad time zone")
            return
        }
        #expect(message.contains("timezone"))
    }
}
