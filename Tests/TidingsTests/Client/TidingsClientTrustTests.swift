import Foundation
import Testing
import Tidings
import TidingsTesting

/// The client's side of trust on the send path: the device context at launch and while running, login with a
/// user token, the token provider, and the installation id after a refused secret.
@Suite struct TidingsClientTrustTests {
    static let tokyo = DeviceContext(
        timezone: "Asia/Tokyo", language: "ja-JP", locale: "ja_JP", country: "JP", osName: "iOS",
        osVersion: "17.2.1", deviceModel: "iPhone15,2", appVersion: "3.1", appBuild: "310")

    /// A client over `directory` whose server echoes every `PUT` (unless the script says otherwise).
    static func client(
        _ directory: URL, _ transport: ScriptedTransport, _ provider: FixedDeviceContextProvider
    ) throws -> TidingsClient {
        var configuration = TidingsClient.Configuration(
            appKey: RegistrationFixture.appKey, serverURL: RegistrationFixture.endpoint, containerDirectory: directory)
        configuration.transport = transport
        configuration.clock = ManualClock()
        configuration.deviceContextProvider = provider
        configuration.secretStore = FileSecretStore(directory: directory)
        return try TidingsClient(configuration: configuration)
    }

    static func directory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("tidings-trust-\(UUID())")
    }

    @Test func aTimeZoneChangeWhileRunningRegistersOnce() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let transport = ScriptedTransport(whenExhausted: RegistrationFixture.echo)
        let provider = FixedDeviceContextProvider(Self.tokyo)
        let client = try Self.client(directory, transport, provider)
        guard case .sent = await client.syncRegistration() else {
            Issue.record("the first registration was not sent")
            return
        }
        #expect(try JSONValue.parse(transport.requests[0].body)["timezone"] == "Asia/Tokyo")
        #expect(await client.deviceContextMayHaveChanged() == .unchanged)
        #expect(transport.requestCount == 1)

        provider.context.timezone = "America/New_York"
        guard case .sent = await client.deviceContextMayHaveChanged() else {
            Issue.record("the new time zone was not sent")
            return
        }
        #expect(await client.deviceContextMayHaveChanged() == .unchanged)
        #expect(await client.syncRegistration() == .unchanged)
        #expect(transport.requestCount == 2)
        #expect(try JSONValue.parse(transport.requests[1].body)["timezone"] == "America/New_York")
    }

    @Test func eachLaunchComparesTheContextWithTheLastOneSent() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let transport = ScriptedTransport(whenExhausted: RegistrationFixture.echo)
        let provider = FixedDeviceContextProvider(Self.tokyo)
        await (try Self.client(directory, transport, provider)).syncRegistration()
        #expect(await (try Self.client(directory, transport, provider)).syncRegistration() == .unchanged)
        #expect(transport.requestCount == 1)

        provider.context.language = "ko-KR"
        let updated = try Self.client(directory, transport, provider)
        guard case .sent = await updated.syncRegistration() else {
            Issue.record("the changed language was not sent at launch")
            return
        }
        #expect(await updated.syncRegistration() == .unchanged)
        #expect(transport.requestCount == 2)
        #expect(try JSONValue.parse(transport.requests[1].body)["language"] == "ko-KR")
    }

    @Test func loginWithAUserTokenProvesTheBindingOnly() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let transport = ScriptedTransport(whenExhausted: RegistrationFixture.echo)
        let client = try Self.client(directory, transport, FixedDeviceContextProvider(Self.tokyo))
        guard case .sent = try await client.login(userID: "user-7", userToken: "jwt-7") else {
            Issue.record("the login was not sent")
            return
        }
        #expect(client.userID == "user-7")
        await client.setConsents(.init(notifications: true))
        #expect(transport.requests.map { $0.header("X-Tidings-User-Token") } == ["jwt-7", nil])
    }

    @Test func theProviderIsAskedAfterARestartForTagCalls() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let transport = ScriptedTransport(whenExhausted: RegistrationFixture.echo)
        let provider = FixedDeviceContextProvider(Self.tokyo)
        try await (try Self.client(directory, transport, provider)).login(userID: "user-7", userToken: "jwt-7")

        let relaunched = try Self.client(directory, transport, provider)
        let asked = LockedBox<[String]>([])
        await relaunched.setUserTokenProvider { userID in
            asked.withLock { $0.append(userID) }
            return "fresh-\(userID)"
        }
        transport.enqueue(.respond(status: 200, text: #"{"user_id":"user-7","tags":[]}"#))
        #expect(try await relaunched.tags.get() == [])
        #expect(asked.withLock { $0 } == ["user-7"])
        #expect(transport.requests.count == 2)
        #expect(transport.requests[1].header("X-Tidings-User-Token") == "fresh-user-7")
    }

    @Test func theInstallationIDFollowsTheMoveToANewOne() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let transport = ScriptedTransport(
            [RegistrationFixture.error(403, "installation_secret_required", "prove it")],
            whenExhausted: RegistrationFixture.created(secret: RegistrationFixture.secret("z")))
        let client = try Self.client(directory, transport, FixedDeviceContextProvider(Self.tokyo))
        let old = client.installationID
        guard case .sent = await client.syncRegistration() else {
            Issue.record("the client did not register afresh")
            return
        }
        #expect(client.installationID != old)
        #expect(client.installationID == transport.requests[1].url.lastPathComponent)
        #expect(try InstallationIdentity.loadOrCreate(in: directory).installationID == client.installationID)
    }
}
