import Testing
import Tidings
import TidingsModel

/// Issue #34.2: the permission was read only when the SDK prompted, so a person who allowed notifications
/// elsewhere never had the token registered, and turning them off was never reported.
@Suite struct PermissionRefreshTests {
    typealias FakePrompt = PermissionFlowTests.FakePrompt

    static let token: [UInt8] = Array(repeating: 0xAB, count: 32)

    @Test func permissionGrantedOutsideTheSDKReleasesTheTokenAtTheNextForeground() async throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let client = try TidingsClient(configuration: fixture.configuration())
        try await client.didRegister(deviceToken: .init(Self.token))
        #expect(try await client.registrar.fetchInstallation().state.apnsToken == nil)

        // The app's own prompt (not Tidings') was answered while the app was away.
        let prompt = FakePrompt(.authorized)
        let refresh = await client.refreshPermission(using: prompt)
        #expect(refresh.changed)
        #expect(refresh.alertsBecameAllowed)
        #expect(prompt.calls == ["read", "register"])
        #expect(try await client.registrar.fetchInstallation().state.apnsToken != nil)
    }

    @Test func turningNotificationsOffInSettingsIsReportedAndWithdrawsTheToken() async throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let client = try TidingsClient(configuration: fixture.configuration())
        await client.setPermission(.authorized)
        try await client.didRegister(deviceToken: .init(Self.token))
        #expect(try await client.registrar.fetchInstallation().state.apnsToken != nil)

        let refresh = await client.refreshPermission(using: FakePrompt(.denied))
        #expect(refresh == PermissionRefresh(previous: .authorized, current: .denied))
        #expect(!refresh.alertsBecameAllowed)
        #expect(await client.registrar.desiredState.permission == .denied)
        #expect(try await client.registrar.fetchInstallation().state.permission == .denied)
        #expect(try await client.registrar.fetchInstallation().state.apnsToken == nil)
    }

    @Test func anUnchangedPermissionDoesNothing() async throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let client = try TidingsClient(configuration: fixture.configuration())
        await client.setPermission(.authorized)
        let before = try client.events.count()
        let prompt = FakePrompt(.authorized)
        let refresh = await client.refreshPermission(using: prompt)
        #expect(!refresh.changed)
        #expect(prompt.calls == ["read"])
        #expect(try client.events.count() == before)
    }
}
