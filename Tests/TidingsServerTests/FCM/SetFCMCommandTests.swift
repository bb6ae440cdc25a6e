import Foundation
import Testing
import TidingsModel
import TidingsStore
import TidingsTestSupport

@testable import TidingsPush
@testable import TidingsServer

/// Runs the built `tidingsd apps set-fcm` as an operator would.
@Suite struct SetFCMCommandTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("set-fcm-\(UUID().uuidString)")

    func run(_ arguments: [String]) async throws -> (Int32, String, String) {
        let (process, output, error) = try TidingsdProcessTests.start(
            arguments, environment: ["TIDINGS_DATA_DIR": directory.appendingPathComponent("data").path])
        return await TidingsdProcessTests.finish(process, output, error)
    }

    @Test func storesTheServiceAccountAndNeverPrintsItsKey() async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("service-account.json")
        try Data(ServiceAccountFixture.document()).write(to: file)
        let (created, createdOut, _) = try await run(["apps", "create", "demo", "--bundle-id", "com.example.app"])
        #expect(created == 0, "\(createdOut)")

        let (status, out, err) = try await run(["apps", "set-fcm", "demo", "--service-account", file.path, "--json"])
        #expect(status == 0, "\(err)")
        let printed = try JSONValue.parse(Data(out.utf8))
        #expect(printed["project_id"] == "shop-prod")
        #expect(printed["client_email"] == "fcm@shop-prod.iam.gserviceaccount.com")
        #expect(!out.contains("PRIVATE KEY") && !err.contains("PRIVATE KEY"))
        let appID = try #require(printed["app_id"]?.stringValue)
        // In the store, shared by every instance; no file in the data directory.
        let data = directory.appendingPathComponent("data")
        let store = FCMCredentialsStore(
            backing: StoreCredentialBacking(store: try ServerConfiguration(dataDirectory: data.path).openStore()))
        #expect(try store.load(appID: appID)?.clientEmail == "fcm@shop-prod.iam.gserviceaccount.com")
        #expect(!FileManager.default.fileExists(atPath: data.appendingPathComponent("fcm").path))

        let broken = directory.appendingPathComponent("broken.json")
        try Data(ServiceAccountFixture.document { $0["client_email"] = nil }).write(to: broken)
        let (refused, _, refusal) = try await run(["apps", "set-fcm", "demo", "--service-account", broken.path])
        #expect(refused == 1)
        #expect(refusal.contains("client_email"))
        let (usage, _, usageError) = try await run(["apps", "set-fcm", "demo"])
        #expect(usage == 2)
        #expect(usageError.contains("--service-account"))
    }
}
