import Foundation
import Testing
import TidingsModel
import TidingsTestSupport
import TidingsTesting

@testable import TidingsAPNsEmulator
@testable import TidingsCrypto
@testable import TidingsHTTP
@testable import TidingsMetrics
@testable import TidingsPush
@testable import TidingsServer
@testable import TidingsStore

/// The real sending path on one manual clock: the messages API over a temporary store, the APNs emulator
/// and the fake OAuth2 + FCM server over loopback, per-app APNs and FCM credentials on disk, and the
/// routing provider in front of both, driven by a fan-out worker.
final class SendingHarness: Sendable {
    static let keyID = "KEY1234567"
    static let teamID = "TEAM123456"
    static let topic = "com.example.main"

    let api: APIHarness
    let directory: URL
    let apnsKey = ES256Key.generate()
    let emulator: APNsEmulator
    let emulatorServer: LoopbackServer
    let fake: FakeFCMServer
    let metrics = MetricsRegistry()
    let apnsCredentials: APNsCredentialsStore
    let apns: AppAPNsProvider
    let fcm: AppFCMProvider
    let provider: RoutingPushProvider

    var clock: ManualClock { api.clock }
    var store: any Store { api.store }

    /// - Parameters:
    ///   - withAPNs: store APNs credentials for the app.
    ///   - withFCM: store an FCM service account for the app.
    ///   - emulatorClock: the emulator's own clock (Apple's view of time), when it must differ from ours.
    init(withAPNs: Bool = true, withFCM: Bool = true, emulatorClock: ManualClock? = nil) throws {
        api = try APIHarness(provider: RecordingPushProvider())
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-sending-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        apnsCredentials = APNsCredentialsStore(dataDirectory: directory)
        if withAPNs {
            let keyFile = directory.appendingPathComponent("AuthKey-fixture.p8")
            try Data((apnsKey.privateKeyPEM() ?? "").utf8).write(to: keyFile)
            try apnsCredentials.save(
                appID: api.appID, keyFile: keyFile.path, keyID: Self.keyID, teamID: Self.teamID)
        }
        fake = try FakeFCMServer()
        let fcmCredentials = FCMCredentialsStore(dataDirectory: directory)
        if withFCM {
            let file = directory.appendingPathComponent("service-account.json")
            try Data(try fake.serviceAccountJSON()).write(to: file)
            try fcmCredentials.save(appID: api.appID, serviceAccountFile: file.path)
        }
        emulator = APNsEmulator(
            configuration: .init(
                keys: [.init(keyID: Self.keyID, teamID: Self.teamID, publicKey: apnsKey.publicKey())],
                topics: [Self.topic]),
            clock: emulatorClock ?? api.clock)
        emulatorServer = try LoopbackServer(routes: emulator.router.routes)
        var apnsConfiguration = APNsClient.Configuration()
        apnsConfiguration.productionEndpoint = "http://127.0.0.1:\(emulatorServer.port)"
        apnsConfiguration.sandboxEndpoint = apnsConfiguration.productionEndpoint
        apns = AppAPNsProvider(
            store: api.store, credentials: apnsCredentials, configuration: apnsConfiguration, metrics: metrics,
            clock: api.clock, logger: .disabled())
        var fcmConfiguration = FCMClient.Configuration()
        fcmConfiguration.endpoint = fake.endpoint
        fcm = AppFCMProvider(
            credentials: fcmCredentials, configuration: fcmConfiguration, metrics: metrics, clock: api.clock,
            logger: .disabled())
        provider = RoutingPushProvider(
            store: api.store, apns: apns, apnsCredentials: apnsCredentials, fcm: fcm, clock: api.clock,
            metrics: metrics)
    }

    /// A worker on the harness's store and clock, sending through `provider` (default: the routing
    /// provider); jitter pinned to `random`.
    func worker(
        provider: (any PushProvider)? = nil, initialBackoff: Duration = .seconds(2), random: Double = 1,
        chunkSize: Int = 500, inFlight: Int = 64
    ) -> FanoutWorker {
        var configuration = FanoutWorker.Configuration()
        configuration.chunkSize = chunkSize
        configuration.maximumInFlight = inFlight
        configuration.initialBackoff = initialBackoff
        configuration.random = { random }
        return FanoutWorker(
            store: store, provider: provider ?? self.provider, clock: clock, configuration: configuration,
            metrics: metrics)
    }

    /// Registers `id` with notification consent and `tokens` (`apns_token`, `fcm_token`...).
    func register(_ id: String, _ tokens: [String: JSONValue]) async throws {
        var body: [String: JSONValue] = ["consents": ["notifications": true], "environment": "production"]
        body.merge(tokens) { _, new in new }
        try await api.register(id, body)
    }

    /// `POST /v1/messages` of an alert to everyone; the message id.
    func sendAlertToAll() async throws -> String {
        let reply = try await api.call(
            "POST", "/v1/messages", key: api.serverKey,
            json: ["target": ["all": true], "content": ["title": "Sale", "body": "Today only"]])
        #expect(reply.status == 202, "\(reply.json)")
        return try #require(reply.json["message_id"]?.stringValue)
    }

    func status(_ messageID: String) async throws -> APIHarness.Reply {
        try await api.call("GET", "/v1/messages/\(messageID)", key: api.serverKey)
    }

    func installation(_ id: String) throws -> Installation? {
        try store.installation(appID: api.appID, installationID: id)
    }

    /// The value of a counter in the harness's registry.
    func counter(_ name: String, _ labels: [String: String] = [:]) -> Double {
        metrics.counter(name: name, help: "", labels: labels).value
    }

    func close() async {
        apns.shutdown()
        fcm.shutdown()
        await emulatorServer.server.shutdown()
        await fake.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }
}
