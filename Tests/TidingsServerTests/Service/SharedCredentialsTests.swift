import Foundation
import Testing
import TidingsCrypto
import TidingsHTTP
import TidingsModel
import TidingsPostgres
import TidingsPush
import TidingsServer
import TidingsStore
import TidingsStoreTesting
import TidingsTestSupport

/// APNs and FCM credentials kept in the store (``StoreCredentialBacking``): set through one instance, used by
/// every other; never shown back; files an older tidingsd kept in its data directory imported once.
@Suite struct SharedCredentialsTests {
    /// An instance as tidingsd wires it: an API whose credentials are in its store.
    struct Instance {
        let store: any Store
        let api: TidingsAPI

        init(store: any Store) {
            self.store = store
            var configuration = TidingsAPI.Configuration()
            configuration.credentialBacking = StoreCredentialBacking(store: store)
            api = TidingsAPI(store: store, configuration: configuration, logger: .disabled())
        }

        func call(_ method: String, _ path: String, key: String, json: JSONValue? = nil) async throws
            -> (status: Int, json: JSONValue, text: String)
        {
            var request = HTTPRequest(method: method, path: path)
            request.headers["Authorization"] = "Bearer \(key)"
            if let json { request.body = try JSONEncoder().encode(json) }
            do {
                let response = try await api.router.handler(request)
                let text = String(decoding: response.body, as: UTF8.self)
                return (response.status, (try? JSONValue.parse(response.body)) ?? .null, text)
            } catch let error as HTTPError {
                return (error.status, ["error": ["code": .string(error.code)]], error.message)
            }
        }
    }

    @Test func credentialsSetThroughOneInstanceAreEveryInstancesAndNeverShownBack() async throws {
        let connection = try PostgresTestCluster.shared.get().makeDatabase()
        let a = Instance(store: try PostgresStore(connectionString: connection))
        let b = Instance(store: try PostgresStore(connectionString: connection))
        let administration = AppAdministration(store: a.store)
        let app = try administration.createApp(name: "shared", bundleID: "com.example.shared")
        let adminKey = try administration.createAdminKey().secret
        let pem = try #require(ES256Key.generate().privateKeyPEM())

        let set = try await a.call(
            "PUT", "/v1/admin/apps/\(app.id)/apns", key: adminKey,
            json: ["key": .string(pem), "key_id": "KEY1234567", "team_id": "TEAM123456"])
        #expect(set.status == 200, "\(set.text)")
        #expect(!set.text.contains("PRIVATE KEY"))
        let seen = try await b.call("GET", "/v1/admin/apps/\(app.id)", key: adminKey)
        #expect(seen.json["apns"]?["configured"] == true)
        #expect(seen.json["apns"]?["key_id"] == "KEY1234567")
        #expect(!seen.text.contains("PRIVATE KEY") && !seen.text.contains(String(pem.dropFirst(30).prefix(40))))
        let loaded = try APNsCredentialsStore(backing: StoreCredentialBacking(store: b.store)).load(appID: app.id)
        #expect(loaded?.teamID == "TEAM123456")

        let fcm = try await b.call(
            "PUT", "/v1/admin/apps/\(app.id)/fcm", key: adminKey,
            json: ["service_account": try JSONValue.parse(ServiceAccountFixture.document())])
        #expect(fcm.status == 200, "\(fcm.text)")
        #expect(!fcm.text.contains("PRIVATE KEY"))
        #expect(
            try await a.call("GET", "/v1/admin/apps/\(app.id)", key: adminKey).json["fcm"]?["project_id"] == "shop-prod"
        )

        // Validation still happens before anything is stored: a public key is refused, the stored one stays.
        let refused = try await a.call(
            "PUT", "/v1/admin/apps/\(app.id)/apns", key: adminKey,
            json: ["key": .string(ES256Key.generate().publicKeyPEM()), "key_id": "KEY7654321", "team_id": "TEAM123456"])
        #expect(refused.status == 400)
        #expect(refused.json["error"]?["code"] == "invalid_apns_credentials")
        #expect(
            try await b.call("GET", "/v1/admin/apps/\(app.id)", key: adminKey).json["apns"]?["key_id"] == "KEY1234567")

        #expect(try await b.call("DELETE", "/v1/admin/apps/\(app.id)/apns", key: adminKey).status == 200)
        #expect(try await a.call("GET", "/v1/admin/apps/\(app.id)", key: adminKey).json["apns"]?["configured"] == false)
        #expect(try await a.call("DELETE", "/v1/admin/apps/\(app.id)/apns", key: adminKey).status == 404)
    }

    @Test func storeCopyTakesTheCredentialFilesBesideTheSQLiteFileAlong() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-copy-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = try SQLiteStore(directory: directory)
        let app = try AppAdministration(store: source).createApp(name: "moving", bundleID: "com.example.moving")
        let pem = try #require(ES256Key.generate().privateKeyPEM())
        try APNsCredentialsStore(dataDirectory: directory).save(
            appID: app.id, keyPEM: Data(pem.utf8), keyID: "KEY1234567", teamID: "TEAM123456")
        let target = try PostgresTestCluster.shared.get().makeDatabase()

        let (process, output, error) = try TidingsdProcessTests.start([
            "store", "copy", "--from", "sqlite:" + directory.appendingPathComponent(SQLiteStore.fileName).path,
            "--to", target,
        ])
        let (status, out, err) = await TidingsdProcessTests.finish(process, output, error)
        #expect(status == 0, "\(out)\(err)")
        #expect(out.contains("imported credentials file\t\(app.id)/apns"))
        #expect(out.contains("push_credentials\t1"))
        #expect(!out.contains("PRIVATE KEY") && !err.contains("PRIVATE KEY"))
        let copied = APNsCredentialsStore(
            backing: StoreCredentialBacking(store: try PostgresStore(connectionString: target)))
        #expect(try copied.load(appID: app.id)?.keyID == "KEY1234567")
    }

    @Test func filesAnOlderVersionKeptAreImportedOnceAndABrokenOneIsReportedNotFatal() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-import-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore(directory: directory)
        let administration = AppAdministration(store: store)
        let first = try administration.createApp(name: "first", bundleID: "com.example.first")
        let second = try administration.createApp(name: "second", bundleID: "com.example.second")
        let third = try administration.createApp(name: "third", bundleID: "com.example.third")
        let files = (
            apns: APNsCredentialsStore(dataDirectory: directory), fcm: FCMCredentialsStore(dataDirectory: directory)
        )
        let pem = try #require(ES256Key.generate().privateKeyPEM())
        try files.apns.save(appID: first.id, keyPEM: Data(pem.utf8), keyID: "KEY1234567", teamID: "TEAM123456")
        try files.fcm.save(appID: first.id, serviceAccount: Data(ServiceAccountFixture.document()))
        // A file broken on disk (it was valid when saved).
        try files.fcm.save(appID: second.id, serviceAccount: Data(ServiceAccountFixture.document()))
        try Data("{not json".utf8).write(to: files.fcm.fileURL(second.id))
        // An app whose store already has credentials: its old file does not replace them.
        let stored = FCMCredentialsStore(backing: StoreCredentialBacking(store: store))
        try stored.save(
            appID: third.id, serviceAccount: Data(ServiceAccountFixture.document { $0["project_id"] = "newer" }))
        try files.fcm.save(appID: third.id, serviceAccount: Data(ServiceAccountFixture.document()))

        let outcome = try CredentialFileImport.run(dataDirectory: directory, store: store, logger: .disabled())
        #expect(outcome.imported.sorted() == ["\(first.id)/apns", "\(first.id)/fcm"])
        #expect(outcome.failed.count == 1)
        #expect(outcome.failed.first?.hasPrefix("\(second.id)/fcm: ") == true)
        #expect(outcome.failed.first?.contains("PRIVATE KEY") == false)

        let apns = APNsCredentialsStore(backing: StoreCredentialBacking(store: store))
        #expect(try apns.load(appID: first.id)?.keyID == "KEY1234567")
        #expect(try stored.load(appID: first.id)?.projectID == "shop-prod")
        #expect(try stored.load(appID: second.id) == nil)
        #expect(try stored.load(appID: third.id)?.projectID == "newer")
        let again = try CredentialFileImport.run(dataDirectory: directory, store: store, logger: .disabled())
        #expect(again.imported.isEmpty, "imported once")
    }
}
