import Foundation
import Testing
import TidingsHTTP
import TidingsMetrics
import TidingsModel
import TidingsServer
import TidingsTestSupport

/// `tidings queue flush` against a real tidingsd API served over loopback.
@Suite struct QueueFlushTests {
    /// A tidingsd API on a fresh store, served on a free loopback port, with one app and its app key.
    struct Backend {
        let server: HTTPServer
        let endpoint: String
        let appKey: String
        let serverKey: String
        let api: TidingsAPI
        let directory: URL

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-flush-\(UUID())")
            api = try TidingsAPI(dataDirectory: directory, logger: .disabled())
            let administration = AppAdministration(store: api.store)
            let app = try administration.createApp(name: "Flush", bundleID: "com.example.flush")
            appKey = try administration.createKey(app: app.id, kind: .app).secret
            serverKey = try administration.createKey(app: app.id, kind: .server).secret
            let handler = HTTPMiddleware.standard(
                router: api.router, logger: .disabled(), metrics: MetricsRegistry(), handlerTimeout: .seconds(30))
            server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0), handler: handler, logger: .disabled())
            endpoint = "http://127.0.0.1:\(try server.start())"
        }

        func storedEventCount() async throws -> Int {
            let request = HTTPRequest(
                method: "GET", path: "/v1/events", query: [(name: "limit", value: "1000")],
                headers: ["Authorization": "Bearer \(serverKey)"])
            let response = try await api.router.handler(request)
            return try JSONValue.parse(response.body)["events"]?.arrayValue?.count ?? -1
        }

        func stop() {
            server.stopNow()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// Registers `installationID` as the SDK does and answers the secret the server issued.
    func register(_ installationID: String, on backend: Backend) async throws -> String {
        let request = HTTPRequest(
            method: "PUT", path: "/v1/installations/\(installationID)",
            headers: ["Authorization": "Bearer \(backend.appKey)"], body: Data("{}".utf8))
        let response = try await backend.api.router.handler(request)
        #expect(response.status == 201)
        return try #require(try JSONValue.parse(response.body)["installation_secret"]?.stringValue)
    }

    /// A fresh app container with an event store of `count` events recorded by `installationID`.
    func container(installationID: String, count: Int) async throws -> (directory: URL, db: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-flush-db-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let db = directory.appendingPathComponent("events.sqlite").path
        let written = try await TidingsExecutable.run(
            ["queue", "_write", "--db", db, "--count", String(count), "--installation", installationID])
        #expect(written.status == 0)
        return (directory, db)
    }

    func storedCount(_ db: String) async throws -> JSONValue? {
        let stats = try await TidingsExecutable.run(["queue", "stats", "--db", db, "--json"])
        return try JSONValue.parse(stats.standardOutput)["event_count"]
    }

    @Test func flushUploadsEveryEventAsTheContainersInstallationAndEmptiesTheStore() async throws {
        let backend = try Backend()
        defer { backend.stop() }
        let installationID = UUID().uuidString.lowercased()
        let (directory, db) = try await container(installationID: installationID, count: 7)
        defer { try? FileManager.default.removeItem(at: directory) }
        let secret = try await register(installationID, on: backend)

        let refused = try await TidingsExecutable.run([
            "queue", "flush", "--db", db, "--endpoint", backend.endpoint, "--app-key", "tdg_app_wrong", "--json",
            "--installation", installationID, "--installation-secret", secret,
        ])
        #expect(refused.status == 1)
        #expect(try JSONValue.parse(refused.standardOutput)["accepted"] == 0)
        #expect(try await storedCount(db) == 7)

        // Nothing in the container says which installation this is: the flush cannot prove it, so it does not try.
        let unproven = try await TidingsExecutable.run(
            ["queue", "flush", "--db", db, "--endpoint", backend.endpoint, "--app-key", backend.appKey])
        #expect(unproven.status == 2)
        #expect(unproven.standardError.contains("--installation"), "\(unproven.standardError)")
        #expect(try await storedCount(db) == 7)

        // The SDK's files in the container: its installation id and the secret FileSecretStore keeps.
        try Data(installationID.utf8).write(to: directory.appendingPathComponent("tidings-installation-id"))
        let secretFile: JSONValue = ["installation_id": .string(installationID), "secret": .string(secret)]
        try secretFile.serializedData().write(to: directory.appendingPathComponent("tidings-installation-secret.json"))
        let flushed = try await TidingsExecutable.run(
            ["queue", "flush", "--db", db, "--endpoint", backend.endpoint, "--app-key", backend.appKey, "--json"])
        #expect(flushed.status == 0, "\(flushed.standardError)")
        let summary = try JSONValue.parse(flushed.standardOutput)
        #expect(summary["accepted"] == 7)
        #expect(summary["remaining"] == 0)
        #expect(try await backend.storedEventCount() == 7)

        let again = try await TidingsExecutable.run(
            ["queue", "flush", "--db", db, "--endpoint", backend.endpoint, "--app-key", backend.appKey])
        #expect(again.status == 0)
        #expect(again.standardOutput.hasPrefix("sent 0 in 0 request(s)"))
    }

    @Test func flushWithAnotherInstallationsSecretIsRefusedAndKeepsTheEvents() async throws {
        let backend = try Backend()
        defer { backend.stop() }
        let installationID = UUID().uuidString.lowercased()
        let (directory, db) = try await container(installationID: installationID, count: 3)
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try await register(installationID, on: backend)
        let otherSecret = try await register("someone-else", on: backend)

        let refused = try await TidingsExecutable.run([
            "queue", "flush", "--db", db, "--endpoint", backend.endpoint, "--app-key", backend.appKey, "--json",
            "--installation", installationID, "--installation-secret", otherSecret,
        ])
        #expect(refused.status == 1)
        #expect(try JSONValue.parse(refused.standardOutput)["error"]?["code"] == "unauthorized")
        #expect(try await storedCount(db) == 3)
        #expect(try await backend.storedEventCount() == 0)

        let malformed = try await TidingsExecutable.run([
            "queue", "flush", "--db", db, "--endpoint", backend.endpoint, "--app-key", backend.appKey,
            "--installation", installationID, "--installation-secret", "hunter2",
        ])
        #expect(malformed.status == 2)
    }

    @Test func anotherInstallationsEventsInTheStoreAreRefusedAndDropped() async throws {
        let backend = try Backend()
        defer { backend.stop() }
        let installationID = UUID().uuidString.lowercased()
        let (directory, db) = try await container(installationID: "old-installation", count: 2)
        defer { try? FileManager.default.removeItem(at: directory) }
        let secret = try await register(installationID, on: backend)
        let flushed = try await TidingsExecutable.run([
            "queue", "flush", "--db", db, "--endpoint", backend.endpoint, "--app-key", backend.appKey, "--json",
            "--installation", installationID, "--installation-secret", secret,
        ])
        let summary = try JSONValue.parse(flushed.standardOutput)
        // The two events, and the store's own events_dropped report, which names the installation the store
        // last recorded for: the old one as well.
        #expect(summary["accepted"] == 0)
        #expect((summary["rejected"]?.integerValue ?? 0) >= 2)
        #expect(summary["remaining"] == 0)
        #expect(try await backend.storedEventCount() == 0)
    }
}
