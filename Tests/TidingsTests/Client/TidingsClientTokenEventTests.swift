import Foundation
import Testing
import Tidings
import TidingsServer
import TidingsTesting

/// `token_register` and `permission_change` reach the server once per change, through the event queue.
@Suite struct TidingsClientTokenEventTests {
    @Test func aNewTokenAndAPermissionChangeAreEachRecordedOnce() async throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let client = try TidingsClient(configuration: fixture.configuration())
        _ = await client.didFinishLaunching()

        await client.setPermission(.authorized)
        await client.setPermission(.authorized)
        let token = Data(repeating: 0xAB, count: 32)
        _ = try await client.didRegister(deviceToken: token)
        _ = try await client.didRegister(deviceToken: token)
        _ = try await client.didRegister(deviceToken: Data(repeating: 0xCD, count: 32))
        await client.setPermission(.denied)
        _ = await client.flush()

        let permissions = try fixture.serverEvents(.permissionChange)
        #expect(permissions.map(\.permission) == ["authorized", "denied"])
        let registrations = try fixture.serverEvents(.tokenRegister)
        #expect(registrations.map(\.token) == [String(repeating: "ab", count: 32), String(repeating: "cd", count: 32)])
        #expect(registrations.allSatisfy { $0.tokenType == .apns && $0.permission == "authorized" })
        #expect(registrations.allSatisfy { $0.installationID == client.installationID })
    }
}
