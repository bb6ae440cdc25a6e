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

    @Test func flushUploadsEveryEventAndEmptiesTheStore() async throws {
        let backend = try Backend()
        defer { backend.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-flush-db-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let db = directory.appendingPathComponent("events.sqlite").path
        #expect(try await TidingsExecutable.run(["queue", "_write", "--db", db, "--count", "7"]).status == 0)

        let refused = try await TidingsExecutable.run(
            ["queue", "flush", "--db", db, "--endpoint", backend.endpoint, "--app-key", "tdg_app_wrong", "--json"])
        #expect(refused.status == 1)
        #expect(try JSONValue.parse(refused.standardOutput)["accepted"] == 0)
        let kept = try await TidingsExecutable.run(["queue", "stats", "--db", db, "--json"])
        #expect(try JSONValue.parse(kept.standardOutput)["event_count"] == 7)

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
}
