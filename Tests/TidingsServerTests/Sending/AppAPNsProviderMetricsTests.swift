import Foundation
import Testing
import TidingsAPNsEmulator
import TidingsCrypto
import TidingsMetrics
import TidingsModel
import TidingsPush
import TidingsServer
import TidingsStore
import TidingsTestSupport

/// Each app's APNs connections in `/metrics`, by topic and environment, read from whichever client the app has
/// now: a client replaced after a key change carries on the same series.
@Suite struct AppAPNsProviderMetricsTests {
    static let topic = "com.example.shop"

    /// The value of `name{environment="…",topic="…"}` in `metrics`' exposition; nil when there is no such line.
    static func value(
        _ metrics: MetricsRegistry, _ name: String, topic: String = topic, environment: String = "production"
    ) -> Double? {
        let series = "\(name){environment=\"\(environment)\",topic=\"\(topic)\"} "
        return metrics.exposition().split(separator: "\n").first { $0.hasPrefix(series) }.flatMap {
            Double($0.dropFirst(series.count))
        }
    }

    @Test func connectionsAreShownByTopicAndEnvironmentAcrossAClientReplacedForANewKey() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-apns-metrics-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore(directory: directory)
        let app = try AppAdministration(store: store).createApp(name: "Shop", bundleID: Self.topic)
        let credentials = APNsCredentialsStore(backing: StoreCredentialBacking(store: store))
        let first = ES256Key.generate()
        let second = ES256Key.generate()
        try credentials.save(
            appID: app.id, keyPEM: Data(try #require(first.privateKeyPEM()).utf8), keyID: "KEY1111111",
            teamID: "TEAM123456")

        let emulator = APNsEmulator(
            configuration: .init(
                keys: [
                    .init(keyID: "KEY1111111", teamID: "TEAM123456", publicKey: first.publicKey()),
                    .init(keyID: "KEY2222222", teamID: "TEAM123456", publicKey: second.publicKey()),
                ],
                topics: [Self.topic]))
        let emulatorServer = try LoopbackServer(routes: emulator.router.routes)
        var apns = APNsClient.Configuration()
        apns.productionEndpoint = "http://127.0.0.1:\(emulatorServer.port)"
        apns.sandboxEndpoint = apns.productionEndpoint
        let metrics = MetricsRegistry()
        let provider = AppAPNsProvider(
            store: store, credentials: credentials, configuration: apns, metrics: metrics, logger: .disabled())
        let push = OutgoingPush(
            token: String(repeating: "c3", count: 32), environment: .production, topic: Self.topic,
            payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8))

        // Nothing sent yet: no client, no series.
        #expect(Self.value(metrics, AppAPNsProvider.connectionsMetric) == nil)

        #expect(await provider.send(push).disposition == .sent)
        #expect(Self.value(metrics, AppAPNsProvider.connectionsMetric) == 1)
        #expect(Self.value(metrics, AppAPNsProvider.connectionsOpenedMetric) == 1)
        #expect(Self.value(metrics, AppAPNsProvider.pushesInFlightMetric) == 0)
        #expect((Self.value(metrics, AppAPNsProvider.streamsMetric) ?? 0) > 0)
        // The sandbox host was never used.
        #expect(Self.value(metrics, AppAPNsProvider.connectionsMetric, environment: "sandbox") == 0)
        #expect(Self.value(metrics, AppAPNsProvider.connectionsOpenedMetric, environment: "sandbox") == 0)

        // A new key: the store announces it, the next push goes through a new client with its own connection,
        // and the series go on from the old client's.
        try credentials.save(
            appID: app.id, keyPEM: Data(try #require(second.privateKeyPEM()).utf8), keyID: "KEY2222222",
            teamID: "TEAM123456")
        #expect(await provider.send(push).disposition == .sent)
        #expect(Self.value(metrics, AppAPNsProvider.connectionsOpenedMetric) == 2)
        #expect(Self.value(metrics, AppAPNsProvider.connectionsMetric) == 1)

        // Closed at shutdown.
        provider.shutdown()
        #expect(Self.value(metrics, AppAPNsProvider.connectionsMetric) == 0)
        #expect(Self.value(metrics, AppAPNsProvider.connectionsOpenedMetric) == 2)
        await emulatorServer.server.shutdown()
    }
}
