import Foundation
import Testing
import Tidings
import TidingsTesting

/// A device-only store in memory: the keychain's `ThisDeviceOnly` items, which a restore does not bring.
final class MemoryDeviceMarkerStore: DeviceMarkerStore {
    let state: LockedBox<(marked: String?, unavailable: Bool)>

    init(_ marked: String? = nil, unavailable: Bool = false) {
        state = LockedBox((marked, unavailable))
    }

    var marked: String? { state.withLock { $0.marked } }

    func markedInstallationID() throws(RegistrationError) -> String? {
        let (marked, unavailable) = state.withLock { $0 }
        if unavailable { throw .storage("errSecInteractionNotAllowed") }
        return marked
    }

    func mark(_ installationID: String) throws(RegistrationError) {
        let written = state.withLock { state -> Bool in
            guard !state.unavailable else { return false }
            state.marked = installationID
            return true
        }
        if !written { throw .storage("errSecInteractionNotAllowed") }
    }
}

/// Issue #34.3: after a restore the SDK kept the restored APNs, VoIP and FCM tokens, and sent them (under
/// a new id, after a 403) from the new phone: the old phone lost its pushes.
@Suite struct InstallationRestoreTests {
    static let oldID = RegistrationFixture.installationID.uuidString.lowercased()
    static let newID = RegistrationFixture.replacementID.uuidString.lowercased()

    @Test(arguments: [
        (DeviceItemRead<String>.present(oldID), DeviceItemRead<Bool>.absent, true, InstallationRestoreCheck.sameDevice),
        (.present("another-id"), .present(true), true, .restored),
        (.absent, .present(true), true, .sameDevice),
        (.absent, .absent, true, .restored),
        (.absent, .present(false), true, .restored),
        (.absent, .absent, false, .firstLaunch),
        (.unavailable, .present(true), true, .undecided),
        (.absent, .unavailable, true, .undecided),
    ])
    func theDecisionTable(
        marker: DeviceItemRead<String>, secret: DeviceItemRead<Bool>, registered: Bool,
        expected: InstallationRestoreCheck
    ) {
        let check = InstallationRestoreCheck(
            installationID: Self.oldID, marker: marker, secret: secret, hasRegistrationState: registered)
        #expect(check == expected)
    }

    /// The old phone's container, as a backup carries it: a registered record with its three tokens.
    func restoredContainer(_ fixture: RegistrationFixture) async throws {
        let oldPhone = try fixture.registrar()
        await oldPhone.setPermission(.authorized)
        try await oldPhone.setAPNsToken(RegistrationFixture.token(0xA1))
        try await oldPhone.setVoIPToken(RegistrationFixture.token(0xB2))
        try await oldPhone.setFCMToken("fcm-old-phone:token")
        await oldPhone.sync()
    }

    @Test func aRestoredCopyMovesToANewIDWithoutTheOldPhonesTokensBeforeTheFirstSync() async throws {
        let fixture = RegistrationFixture([RegistrationFixture.echo, RegistrationFixture.echo])
        defer { fixture.removeFiles() }
        try await restoredContainer(fixture)
        // The new phone: the container came back, the keychain's device-only items did not.
        let markers = MemoryDeviceMarkerStore()
        let newPhone = try fixture.registrar { $0.deviceMarkerStore = markers }
        #expect(newPhone.identity.installationID == Self.newID)
        let state = await newPhone.desiredState
        #expect(state.apnsToken == nil && state.voipToken == nil && state.fcmToken == nil)
        #expect(state.permission == .authorized)
        #expect(markers.marked == Self.newID)

        await newPhone.sync()
        let request = try #require(fixture.transport.requests.last)
        #expect(request.url.path.hasSuffix(Self.newID))
        let body = try fixture.body(fixture.transport.requests.count - 1)
        #expect(body["apns_token"] == .null && body["voip_token"] == .null && body["fcm_token"] == .null)
    }

    @Test func theSameDeviceKeepsItsIDAndTokens() async throws {
        let fixture = RegistrationFixture([RegistrationFixture.echo])
        defer { fixture.removeFiles() }
        try await restoredContainer(fixture)
        let markers = MemoryDeviceMarkerStore(Self.oldID)
        let relaunched = try fixture.registrar { $0.deviceMarkerStore = markers }
        #expect(relaunched.identity.installationID == Self.oldID)
        #expect(await relaunched.desiredState.voipToken != nil)
    }

    @Test func aLockedKeychainDefersTheDecisionAndTheSync() async throws {
        let fixture = RegistrationFixture([RegistrationFixture.echo, RegistrationFixture.echo])
        defer { fixture.removeFiles() }
        try await restoredContainer(fixture)
        let markers = MemoryDeviceMarkerStore(unavailable: true)
        let launched = try fixture.registrar { $0.deviceMarkerStore = markers }
        await launched.setPermission(.denied)
        guard case .deferred = await launched.sync() else {
            Issue.record("a sync ran before the restore could be decided")
            return
        }
        #expect(fixture.transport.requests.count == 1)
        // After the first unlock: decided before anything is sent.
        markers.state.withLock { $0.unavailable = false }
        await launched.sync()
        #expect(launched.identity.installationID == Self.newID)
        #expect(try fixture.body(1)["voip_token"] == .null)
    }

    /// Issue #34.3, second half: when the server moves the registrar to a new id, only the tokens iOS
    /// reported in this process go with it.
    @Test func aMoveToANewIDKeepsOnlyTokensReportedInThisProcess() async throws {
        let fixture = RegistrationFixture([
            RegistrationFixture.echo,
            RegistrationFixture.error(403, "installation_secret_required", "secret required"),
            RegistrationFixture.echo,
        ])
        defer { fixture.removeFiles() }
        try await restoredContainer(fixture)
        let relaunched = try fixture.registrar()
        try await relaunched.setAPNsToken(RegistrationFixture.token(0xC3))
        await relaunched.sync()
        #expect(relaunched.identity.installationID == Self.newID)
        let body = try fixture.body(2)
        #expect(body["apns_token"]?.stringValue == RegistrationFixture.hex(0xC3))
        #expect(body["voip_token"] == .null)
        #expect(body["fcm_token"] == .null)
    }
}
