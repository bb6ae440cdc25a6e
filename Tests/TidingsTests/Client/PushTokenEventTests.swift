import Foundation
import Testing
import Tidings
import TidingsServer
import TidingsTesting

/// VoIP and FCM tokens record `token_register` and `token_unregister` as docs/events.md says.
@Suite struct PushTokenEventTests {
    @Test func aNewVoIPTokenAndANewFCMTokenAreEachRecordedOnce() async throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let client = try TidingsClient(configuration: fixture.configuration())
        let voip = Data(repeating: 0x1F, count: 32)
        _ = try await client.didRegister(voipToken: voip)
        _ = try await client.didRegister(voipToken: voip)
        _ = try await client.didRegister(fcmToken: "fcm:token-1")
        _ = try await client.didRegister(fcmToken: "fcm:token-1")
        _ = await client.flush()

        let registrations = try fixture.serverEvents(.tokenRegister)
        #expect(registrations.map(\.tokenType) == [.voip, .fcm])
        #expect(registrations.map(\.token) == [String(repeating: "1f", count: 32), "fcm:token-1"])
    }

    @Test func aMalformedTokenIsRefusedAndRecordsNothing() async throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let client = try TidingsClient(configuration: fixture.configuration())
        await #expect(throws: RegistrationError.self) { try await client.didRegister(fcmToken: "has space") }
        await #expect(throws: RegistrationError.self) { try await client.didRegister(voipToken: Data([1, 2])) }
        #expect(try client.events.count() == 0)
    }

    @Test func anInvalidatedVoIPTokenRecordsTokenUnregisterAndLeavesTheServer() async throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let client = try TidingsClient(configuration: fixture.configuration())
        _ = try await client.didRegister(voipToken: Data(repeating: 0x2A, count: 32))
        #expect(await client.didInvalidateToken(.voip))
        #expect(await client.didInvalidateToken(.voip))  // nothing left: nothing recorded
        _ = await client.flush()
        let removals = try fixture.serverEvents(.tokenUnregister)
        #expect(removals.map(\.token) == [String(repeating: "2a", count: 32)])
        let installation = try #require(
            try fixture.store.installation(appID: "app_main", installationID: client.installationID))
        #expect(installation.voipToken == nil)
    }

    @Test func pushKitUpdatesApplyInTheOrderTheyCame() async throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFiles() }
        let client = try TidingsClient(configuration: fixture.configuration())
        for byte: UInt8 in [1, 2, 3] { client.enqueueVoIPTokenUpdate(Data(repeating: byte, count: 32)) }
        client.enqueueVoIPTokenUpdate(nil)
        client.enqueueVoIPTokenUpdate(Data(repeating: 9, count: 32))
        await client.waitForTokenUpdates()
        #expect(await client.registrar.desiredState.voipToken?.value == String(repeating: "09", count: 32))
        _ = await client.flush()
        let registered = try fixture.serverEvents(.tokenRegister).map(\.token)
        #expect(registered == ["01", "02", "03", "09"].map { String(repeating: $0, count: 32) })
        #expect(try fixture.serverEvents(.tokenUnregister).map(\.token) == [String(repeating: "03", count: 32)])
    }
}
