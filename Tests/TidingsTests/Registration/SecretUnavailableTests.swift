import Foundation
import Testing
import Tidings
import TidingsTesting

/// A secret store that cannot be read until `unlock()`, as the keychain before the first unlock
/// (`errSecInteractionNotAllowed`).
final class LockedSecretStore: SecretStore {
    let inner: FileSecretStore
    let locked = LockedBox(true)

    init(directory: URL) {
        inner = FileSecretStore(directory: directory)
    }

    func unlock() { locked.withLock { $0 = false } }

    func secret(for installationID: String) throws(RegistrationError) -> InstallationSecret? {
        if locked.withLock({ $0 }) { throw .storage("the keychain read failed: OSStatus -25308") }
        return try inner.secret(for: installationID)
    }

    func setSecret(_ secret: InstallationSecret?, for installationID: String) throws(RegistrationError) {
        if locked.withLock({ $0 }) { throw .storage("the keychain write failed: OSStatus -25308") }
        try inner.setSecret(secret, for: installationID)
    }
}

/// Issue #34.4: a keychain read error was taken for "no secret": the next sync went without it, got 403
/// `installation_secret_required`, and forked a new installation id.
@Suite struct SecretUnavailableTests {
    static let secret = RegistrationFixture.secret("S")
    static let id = RegistrationFixture.installationID.uuidString.lowercased()

    /// The server's rule: a request about an installation with a secret must carry it.
    static let server: ScriptedTransport.Step = .handle { request in
        guard request.header(InstallationSecret.headerName) == secret else {
            let json: JSONValue = ["error": ["code": "installation_secret_required", "message": "secret required"]]
            return TransportResponse(status: 403, headers: [:], body: (try? json.serialized()) ?? [])
        }
        return RegistrationFixture.echoResponse(request)
    }

    @Test func anUnreadableSecretDefersTheSyncAndNeverForksTheInstallation() async throws {
        let fixture = RegistrationFixture([Self.server, Self.server])
        defer { fixture.removeFiles() }
        try FileSecretStore(directory: fixture.directory).setSecret(InstallationSecret(Self.secret), for: Self.id)
        let store = LockedSecretStore(directory: fixture.directory)
        let registrar = try fixture.registrar { $0.secretStore = store }
        try await registrar.setAPNsToken(RegistrationFixture.token(0x01))

        guard case .deferred(_, let reason) = await registrar.sync() else {
            Issue.record("a sync went out without the secret")
            return
        }
        #expect(reason.code == "storage_failed")
        #expect(fixture.transport.requests.isEmpty)
        #expect(registrar.identity.installationID == Self.id)

        // After the first unlock the secret is read again and goes out with the same id.
        store.unlock()
        fixture.clock.advance(by: .seconds(3600))
        guard case .sent = await registrar.sync() else {
            Issue.record("the sync after the unlock did not send")
            return
        }
        #expect(registrar.identity.installationID == Self.id)
        #expect(fixture.transport.requests.first?.header(InstallationSecret.headerName) == Self.secret)
    }

    @Test func anAbsentSecretStillRegistersAsBefore() async throws {
        let fixture = RegistrationFixture([RegistrationFixture.created(secret: Self.secret)])
        defer { fixture.removeFiles() }
        let store = LockedSecretStore(directory: fixture.directory)
        store.unlock()
        let registrar = try fixture.registrar { $0.secretStore = store }
        guard case .sent = await registrar.sync(force: true) else {
            Issue.record("a fresh installation did not register")
            return
        }
        #expect(try store.secret(for: Self.id)?.value == Self.secret)
    }
}
