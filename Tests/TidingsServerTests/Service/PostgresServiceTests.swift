import Foundation
import Testing
import TidingsHTTP
import TidingsModel
import TidingsPostgres
import TidingsServer
import TidingsStore
import TidingsStoreTesting

/// tidingsd's wiring on PostgreSQL (`--store`): the same API over the other backend.
@Suite struct PostgresServiceTests {
    static func request(
        _ method: String, _ path: String, key: String, json: JSONValue? = nil, headers: [(String, String)] = []
    ) throws -> HTTPRequest {
        var request = HTTPRequest(method: method, path: path)
        request.headers["Authorization"] = "Bearer \(key)"
        for (name, value) in headers { request.headers[name] = value }
        if let json { request.body = Data(try json.serialized()) }
        return request
    }

    @Test func theServiceServesTheAPIFromPostgreSQL() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-pg-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = ServerConfiguration(dataDirectory: directory.path)
        configuration.postgresStore = try StoreBackend.postgresConfiguration().connectionString
        configuration.postgresConnections = 3
        configuration.readinessCacheDuration = .zero
        let service = try TidingsService(configuration: configuration, logger: .disabled())
        let postgres = try #require(service.store as? PostgresStore)
        #expect(postgres.configuration.maximumConnections == 3, "--store-connections sizes the pool")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent(SQLiteStore.fileName).path))

        let admin = AppAdministration(store: service.store)
        let app = try admin.createApp(name: "pg", bundleID: "com.example.pg")
        let appKey = try admin.createKey(app: app.id, kind: .app).secret
        let serverKey = try admin.createKey(app: app.id, kind: .server).secret

        let created = try await service.handler(
            Self.request(
                "PUT", "/v1/installations/inst-1", key: appKey,
                json: ["apns_token": .string(String(repeating: "ab", count: 32)), "timezone": "Asia/Tokyo"]))
        #expect(created.status == 201)
        let secret = try #require(try JSONValue.parse(created.body)["installation_secret"]?.stringValue)
        let read = try await service.handler(
            Self.request(
                "GET", "/v1/installations/inst-1", key: appKey, headers: [("X-Tidings-Installation-Secret", secret)]))
        #expect(read.status == 200)
        let sent = try await service.handler(
            Self.request(
                "POST", "/v1/messages", key: serverKey,
                json: ["target": ["all": true], "content": ["title": "Hi", "body": "From PostgreSQL"]]))
        #expect(sent.status == 202, "\(String(decoding: sent.body, as: UTF8.self))")
        #expect(try JSONValue.parse(sent.body)["targets"] == .integer(1))

        let ready = try await service.handler(HTTPRequest(method: "GET", path: "/readyz"))
        let checks = try JSONValue.parse(ready.body)["checks"]
        #expect(checks?["store"]?["status"] == "ok", "\(checks ?? .null)")
        await service.stop()
    }

    @Test func storeSettingsAreValidatedAndTheSecretIsNotEchoed() throws {
        func resolve(_ value: String) throws(ServerConfigurationError) -> ServerConfiguration.Invocation {
            try ServerConfiguration.resolve(arguments: ["--store", value], environment: [:]) { _ in Data() }
        }
        guard case .serve(let url) = try resolve("postgres://tidings:hunter2@db/tidings") else {
            Issue.record("not a serve invocation")
            return
        }
        #expect(url.postgresStore == "postgres://tidings:hunter2@db/tidings")
        guard case .serve(let sqlite) = try resolve("sqlite") else { return }
        #expect(sqlite.postgresStore == nil)
        let error = #expect(throws: ServerConfigurationError.self) { try resolve("mysql://root:hunter2@db/x") }
        #expect(error?.message.contains("--store") == true)
        #expect(error?.message.contains("hunter2") == false)
    }
}
