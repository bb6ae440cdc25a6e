import Foundation
import Testing
import TidingsModel
import TidingsStore

@testable import TidingsCrypto
@testable import TidingsPush
@testable import TidingsServer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Runs the built `tidingsd apns-emulator` and `tidingsd apps set-apns` as an operator would.
@Suite struct EmulatorProcessTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("emulator-\(UUID().uuidString)")

    func writeKeyFixture(_ key: ES256Key) throws -> String {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("AuthKey_test-fixture.p8").path
        try Data(try #require(key.privateKeyPEM()).utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    func run(_ arguments: [String]) async throws -> (Int32, String, String) {
        let (process, output, error) = try TidingsdProcessTests.start(
            arguments, environment: ["TIDINGS_DATA_DIR": directory.appendingPathComponent("data").path])
        return await TidingsdProcessTests.finish(process, output, error)
    }

    @Test func servesSignedPushesAndStopsOnSIGTERM() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = ES256Key.generate()
        let keyFile = try writeKeyFixture(key)
        let (process, output, error) = try TidingsdProcessTests.start([
            "apns-emulator", "--listen", "127.0.0.1:0", "--key-id", "KEY1234567", "--team-id", "TEAM123456",
            "--key-file", keyFile, "--topic", "com.example.app",
        ])
        guard let port = await TidingsdProcessTests.port(from: output) else {
            process.terminate()
            Issue.record("the emulator did not print its port")
            return
        }
        let token = String(repeating: "c3", count: 32)
        let provider = try APNsProviderToken(key: key, configuration: .init(keyID: "KEY1234567", teamID: "TEAM123456"))
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/3/device/\(token)")!)
        request.httpMethod = "POST"
        request.setValue(try provider.authorizationHeader(), forHTTPHeaderField: "authorization")
        request.setValue("com.example.app", forHTTPHeaderField: "apns-topic")
        request.httpBody = Data(#"{"aps":{"alert":"hello"}}"#.utf8)
        let (_, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let (data, _) = try await URLSession.shared.data(
            from: URL(string: "http://127.0.0.1:\(port)/emulator/devices/\(token)/notifications")!)
        #expect(try JSONValue.parse(data)["notifications"]?.arrayValue?.count == 1)
        kill(process.processIdentifier, SIGTERM)
        let (status, _, _) = await TidingsdProcessTests.finish(process, output, error)
        #expect(status == 0)
    }

    @Test(arguments: [
        ["apns-emulator", "--key-id", "KEY1234567"],
        ["apns-emulator", "--listen", "nowhere"],
        ["apns-emulator", "stray"],
    ])
    func badEmulatorArgumentsExitTwo(arguments: [String]) async throws {
        let (status, _, err) = try await run(arguments)
        #expect(status == 2)
        #expect(err.contains("usage: tidingsd apns-emulator"))
    }

    @Test func unreadableKeyFileExitsOne() async throws {
        let (status, _, err) = try await run([
            "apns-emulator", "--key-id", "KEY1234567", "--team-id", "TEAM123456", "--public-key", "/nonexistent.pem",
        ])
        #expect(status == 1)
        #expect(err.contains("cannot read the key file /nonexistent.pem"))
    }

    @Test func setAPNsStoresTheKeyAndNeverPrintsIt() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = ES256Key.generate()
        let keyFile = try writeKeyFixture(key)
        let (created, createdOut, _) = try await run(["apps", "create", "demo", "--bundle-id", "com.example.app"])
        #expect(created == 0, "\(createdOut)")
        let (status, out, _) = try await run([
            "apps", "set-apns", "demo", "--key-file", keyFile, "--key-id", "KEY1234567", "--team-id", "TEAM123456",
            "--json",
        ])
        #expect(status == 0)
        let printed = try JSONValue.parse(Data(out.utf8))
        #expect(printed["key_id"] == "KEY1234567")
        #expect(printed["team_id"] == "TEAM123456")
        #expect(!out.contains("PRIVATE KEY"))
        let appID = try #require(printed["app_id"]?.stringValue)
        let data = directory.appendingPathComponent("data")
        let store = APNsCredentialsStore(
            backing: StoreCredentialBacking(store: try ServerConfiguration(dataDirectory: data.path).openStore()))
        #expect(try store.load(appID: appID)?.key.publicKeyPEM() == key.publicKeyPEM())
        #expect(!FileManager.default.fileExists(atPath: data.appendingPathComponent("apns").path))

        let (refused, _, err) = try await run([
            "apps", "set-apns", "demo", "--key-file", keyFile, "--key-id", "KEY", "--team-id", "TEAM123456",
        ])
        #expect(refused == 1)
        #expect(err.contains("key id"))
    }
}
