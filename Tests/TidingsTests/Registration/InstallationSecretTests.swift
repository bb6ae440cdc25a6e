import Foundation
import Testing
import Tidings
import TidingsTesting

/// The installation secret: kept from the creating `PUT`, sent with every later request about the
/// installation, and the move to a new id when the server says another secret owns this one.
@Suite struct InstallationSecretTests {
    static let secretA = RegistrationFixture.secret("A")
    static let secretB = RegistrationFixture.secret("b")
    static let oldID = RegistrationFixture.installationID.uuidString.lowercased()
    static let newID = RegistrationFixture.replacementID.uuidString.lowercased()

    static func installationJSON(_ id: String = oldID) -> ScriptedTransport.Step {
        .respond(status: 200, text: #"{"installation_id":"\#(id)","platform":"ios"}"#)
    }

    @Test func secretFromTheCreatingPutIsKeptAndSentWithEveryLaterRequest() async throws {
        let fixture = RegistrationFixture([
            RegistrationFixture.created(secret: Self.secretA), RegistrationFixture.echo, Self.installationJSON(),
            Self.installationJSON(), RegistrationFixture.echo,
        ])
        defer { fixture.removeFiles() }
        let registrar = try fixture.registrar()
        try await registrar.setVoIPToken(RegistrationFixture.token(0x0B))
        guard case .sent = await registrar.sync() else {
            Issue.record("the creating sync did not send")
            return
        }
        #expect(fixture.transport.requests[0].header(InstallationSecret.headerName) == nil)

        await registrar.setPermission(.authorized)
        await registrar.sync()
        _ = try await registrar.fetchInstallation()
        _ = try await registrar.unregister(.voip)
        for request in fixture.transport.requests.dropFirst() {
            #expect(request.header("X-Tidings-Installation-Secret") == Self.secretA, "\(request.method) \(request.url)")
        }
        #expect(fixture.transport.requests.map(\.method) == ["PUT", "PUT", "GET", "DELETE"])

        // Kept in a file only the app's user can read, for this installation id only.
        let store = FileSecretStore(directory: fixture.directory)
        #expect(try store.secret(for: Self.oldID)?.value == Self.secretA)
        #expect(try store.secret(for: Self.newID) == nil)
        let attributes = try FileManager.default.attributesOfItem(atPath: store.file.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)

        // The next launch reads it back.
        let relaunched = try fixture.registrar()
        await relaunched.sync(force: true)
        #expect(fixture.transport.requests[4].header(InstallationSecret.headerName) == Self.secretA)
    }

    @Test func tagCallsCarryTheSecret() async throws {
        let fixture = RegistrationFixture([
            RegistrationFixture.created(secret: Self.secretA),
            .respond(status: 200, text: #"{"user_id":"user-1","tags":["news"]}"#),
        ])
        defer { fixture.removeFiles() }
        let registrar = try fixture.registrar()
        try await registrar.login(userID: "user-1")
        #expect(try await TagClient(registrar: registrar).get() == ["news"])
        let request = fixture.transport.requests[1]
        #expect(request.url.path == "/v1/users/user-1/tags")
        #expect(request.header("X-Tidings-Installation") == Self.oldID)
        #expect(request.header("X-Tidings-Installation-Secret") == Self.secretA)
    }

    @Test(arguments: ["tdg_ins_short", "tdg_app_" + String(repeating: "A", count: 43), Self.secretA + "=", ""])
    func malformedSecretIsNeitherKeptNorSent(secret: String) async throws {
        let fixture = RegistrationFixture([RegistrationFixture.created(secret: secret), RegistrationFixture.echo])
        defer { fixture.removeFiles() }
        let registrar = try fixture.registrar()
        await registrar.sync()
        await registrar.setPermission(.denied)
        await registrar.sync()
        #expect(fixture.transport.requests[1].header(InstallationSecret.headerName) == nil)
        #expect(try FileSecretStore(directory: fixture.directory).secret(for: Self.oldID) == nil)
    }

    @Test(arguments: ["installation_secret_required", "installation_secret_invalid"])
    func refusedSecretMovesToANewInstallationIDKeepingTheState(code: String) async throws {
        let fixture = RegistrationFixture([
            RegistrationFixture.error(403, code, "this installation belongs to another secret"),
            RegistrationFixture.created(secret: Self.secretB), RegistrationFixture.echo,
        ])
        defer { fixture.removeFiles() }
        // A secret from an earlier life of the id (say, restored from another device's backup).
        try FileSecretStore(directory: fixture.directory).setSecret(
            InstallationSecret(Self.secretA), for: Self.oldID)
        let registrar = try fixture.registrar()
        await registrar.setPermission(.authorized)
        try await registrar.setAPNsToken(RegistrationFixture.token(0xAB))
        try await registrar.login(userID: "user-9")
        await registrar.setConsents(.init(notifications: true, ads: false))

        guard case .sent(let installation) = await registrar.sync() else {
            Issue.record("the registrar did not register afresh")
            return
        }
        #expect(installation.installationID == Self.newID)
        let requests = fixture.transport.requests
        #expect(requests.count == 2)
        #expect(requests[0].url.path == "/v1/installations/\(Self.oldID)")
        #expect(requests[0].header(InstallationSecret.headerName) == Self.secretA)
        #expect(requests[1].url.path == "/v1/installations/\(Self.newID)")
        #expect(requests[1].header("X-Tidings-Installation") == Self.newID)
        #expect(requests[1].header(InstallationSecret.headerName) == nil)
        let body = try fixture.body(1)
        #expect(body["apns_token"]?.stringValue == RegistrationFixture.hex(0xAB))
        #expect(body["user_id"] == "user-9")
        #expect(body["consents"] == ["notifications": true, "ads": false, "night_ads": .null])

        // The new id is the container's now (the extension reads it), with the new secret.
        #expect(registrar.identity.installationID == Self.newID)
        #expect(try InstallationIdentity.loadOrCreate(in: fixture.directory).installationID == Self.newID)
        let store = FileSecretStore(directory: fixture.directory)
        #expect(try store.secret(for: Self.newID)?.value == Self.secretB)
        #expect(try store.secret(for: Self.oldID) == nil)

        // Later requests use the new id and secret; the desired state survived.
        await registrar.setPermission(.provisional)
        await registrar.sync()
        #expect(fixture.transport.requests[2].url.path == "/v1/installations/\(Self.newID)")
        #expect(fixture.transport.requests[2].header(InstallationSecret.headerName) == Self.secretB)
        #expect(await registrar.userID == "user-9")
    }

    @Test func secondRefusedSecretStopsLikeOther403s() async throws {
        let fixture = RegistrationFixture([
            RegistrationFixture.error(403, "installation_secret_invalid", "not yours"),
            RegistrationFixture.error(403, "installation_secret_required", "not yours either"),
            RegistrationFixture.created(secret: Self.secretB),
        ])
        defer { fixture.removeFiles() }
        let registrar = try fixture.registrar()
        let expected = RegistrationError.installationSecretRefused(
            serverCode: "installation_secret_required", message: "not yours either")
        #expect(await registrar.sync() == .failed(expected))
        #expect(fixture.transport.requestCount == 2)
        fixture.clock.advance(by: .seconds(3600))
        await registrar.setPermission(.authorized)
        #expect(await registrar.sync() == .failed(expected))
        #expect(fixture.transport.requestCount == 2)
        await registrar.resume()
        guard case .sent = await registrar.sync() else {
            Issue.record("a resumed registrar did not send")
            return
        }
        #expect(fixture.transport.requests[2].url.path == "/v1/installations/\(Self.newID)")
    }

    @Test func refusedSecretOnAReadMovesTheNextSyncToANewID() async throws {
        let fixture = RegistrationFixture([
            RegistrationFixture.error(403, "installation_secret_required", "prove it"),
            RegistrationFixture.created(secret: Self.secretB),
        ])
        defer { fixture.removeFiles() }
        let registrar = try fixture.registrar()
        await #expect(
            throws: RegistrationError.installationSecretRefused(
                serverCode: "installation_secret_required", message: "prove it")
        ) {
            try await registrar.fetchInstallation()
        }
        #expect(registrar.identity.installationID == Self.newID)
        guard case .sent = await registrar.sync() else {
            Issue.record("the new installation was not registered")
            return
        }
        #expect(fixture.transport.requests[1].url.path == "/v1/installations/\(Self.newID)")
    }

    @Test func refusedSecretOnATagCallRegistersAfreshAndRetriesOnce() async throws {
        let fixture = RegistrationFixture([
            RegistrationFixture.echo,
            RegistrationFixture.error(403, "installation_secret_required", "prove it"),
            RegistrationFixture.created(secret: Self.secretB),
            .respond(status: 200, text: #"{"user_id":"user-1","tags":["a"]}"#),
        ])
        defer { fixture.removeFiles() }
        let registrar = try fixture.registrar()
        try await registrar.login(userID: "user-1")
        #expect(try await TagClient(registrar: registrar).add(["a"]) == ["a"])
        let requests = fixture.transport.requests
        #expect(requests.map(\.method) == ["PUT", "POST", "PUT", "POST"])
        #expect(requests[2].url.path == "/v1/installations/\(Self.newID)")
        #expect(try fixture.body(2)["user_id"] == "user-1")
        #expect(requests[3].header("X-Tidings-Installation") == Self.newID)
        #expect(requests[3].header(InstallationSecret.headerName) == Self.secretB)
    }

    @Test func theSecretIsNeverLogged() async throws {
        let fixture = RegistrationFixture([
            RegistrationFixture.created(secret: Self.secretA),
            RegistrationFixture.error(403, "installation_secret_invalid", "not yours"),
            RegistrationFixture.created(secret: Self.secretB), RegistrationFixture.created(secret: "tdg_ins_bad"),
        ])
        defer { fixture.removeFiles() }
        let log = InMemoryLogHandler()
        let registrar = try fixture.registrar { $0.logger = Logger(label: "test", level: .trace, handler: log) }
        await registrar.sync()
        await registrar.setPermission(.authorized)
        await registrar.sync()
        await registrar.setPermission(.denied)
        await registrar.sync(force: true)
        #expect(fixture.transport.requestCount == 4)
        #expect(!log.lines.isEmpty)
        for line in log.lines {
            #expect(!line.contains(String(Self.secretA.dropFirst(8))))
            #expect(!line.contains(String(Self.secretB.dropFirst(8))))
        }
        #expect("\(InstallationSecret(Self.secretA)!)" == "tdg_ins_<redacted>")
    }
}
