import Foundation
import Testing
import TidingsAPNsEmulator
import TidingsCrypto
import TidingsHTTP
import TidingsModel
import TidingsPush
import TidingsServer
import TidingsStore
import TidingsTestSupport

@testable import TidingsTesting

/// The whole sending path over loopback: messages API → fan-out → per-app APNs client with the app's
/// ES256 provider token → the APNs emulator, which verifies the token and hands the push to the device.
@Suite struct SendThroughEmulatorTests {
    @Test func aMessageReachesTheDeviceSignedWithTheAppsKey() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-send-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let key = ES256Key.generate()
        let keyFile = directory.appendingPathComponent("AuthKey-test-fixture.p8")
        try Data(try #require(key.privateKeyPEM()).utf8).write(to: keyFile)
        let store = try SQLiteStore(directory: directory)
        let administration = AppAdministration(store: store)
        let app = try administration.createApp(name: "Shop", bundleID: "com.example.shop")
        let appKey = try administration.createKey(app: app.id, kind: .app).secret
        let serverKey = try administration.createKey(app: app.id, kind: .server).secret
        let credentials = APNsCredentialsStore(dataDirectory: directory)
        _ = try credentials.save(appID: app.id, keyFile: keyFile.path, keyID: "KEY1234567", teamID: "TEAM123456")

        let emulator = APNsEmulator(
            configuration: .init(
                keys: [.init(keyID: "KEY1234567", teamID: "TEAM123456", publicKey: key.publicKey())],
                topics: ["com.example.shop"]))
        let emulatorServer = try LoopbackServer(routes: emulator.router.routes)
        var apns = APNsClient.Configuration()
        apns.productionEndpoint = "http://127.0.0.1:\(emulatorServer.port)"
        apns.sandboxEndpoint = apns.productionEndpoint
        let provider = AppAPNsProvider(
            store: store, credentials: credentials, configuration: apns, logger: .disabled())
        let api = TidingsAPI(store: store, logger: .disabled(), provider: provider)
        let fanout = FanoutService(store: store, provider: provider)
        fanout.start()

        func call(_ method: String, _ path: String, key: String, _ body: JSONValue?) async throws -> JSONValue {
            let request = HTTPRequest(
                method: method, path: path, headers: ["Authorization": "Bearer \(key)"],
                body: try body.map { Data(try $0.serialized()) } ?? Data())
            return try JSONValue.parse(try await api.router.handler(request).body)
        }

        let token = String(repeating: "c3", count: 32)
        _ = try await call(
            "PUT", "/v1/installations/phone-1", key: appKey,
            ["platform": "ios", "apns_token": .string(token), "environment": "production"])
        let accepted = try await call(
            "POST", "/v1/messages", key: serverKey,
            [
                "target": ["installation_ids": ["phone-1"]], "kind": "alert",
                "content": ["title": "Order shipped", "body": "It arrives tomorrow."],
            ])
        let messageID = try #require(accepted["message_id"]?.stringValue)

        let received = await emulator.collect(token: token, wait: .seconds(20))
        #expect(received.count == 1)
        let payload = try #require(received.first?.payload)
        #expect(payload["aps"]?["alert"]?["title"] == "Order shipped")
        #expect(payload["tidings"]?["id"] == .string(messageID))

        await fanout.stop()
        provider.shutdown()
        await emulatorServer.server.shutdown()
    }
}
