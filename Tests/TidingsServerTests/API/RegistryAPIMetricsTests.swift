import Foundation
import Testing
import TidingsHTTP
import TidingsMetrics
import TidingsModel
import TidingsServer
import TidingsStoreTesting
import TidingsTesting

@Suite struct RegistryAPIMetricsTests {
    @Test func ingestAndAuthCountersReachTheExposition() async throws {
        let registry = MetricsRegistry()
        let store = try StoreBackend.sqlite.makeStore()
        let api = TidingsAPI(store: store, logger: .disabled(), metrics: RegistryAPIMetrics(registry: registry))
        let request = HTTPRequest(
            method: "GET", path: "/v1/installations", headers: ["Authorization": "Bearer tdg_srv_nope"])
        await #expect(throws: HTTPError.self) { _ = try await api.router.handler(request) }
        let metrics = RegistryAPIMetrics(registry: registry)
        metrics.eventsIngested(accepted: 3, duplicate: 1, rejected: 0)
        metrics.installationUpserted(created: true)
        let text = registry.exposition()
        #expect(text.contains(#"tidings_auth_failures_total{status="401"} 1"#))
        #expect(text.contains(#"tidings_events_ingested_total{status="accepted"} 3"#))
        #expect(text.contains(#"tidings_events_ingested_total{status="duplicate"} 1"#))
        #expect(text.contains(#"tidings_installations_upserted_total{change="created"} 1"#))
    }

    @Test func storeSizeIsTheSumOfItsFiles() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = ["a", "b"].map { directory.appendingPathComponent($0) }
        try Data(count: 100).write(to: files[0])
        try Data(count: 23).write(to: files[1])
        let registry = MetricsRegistry()
        _ = RegistryAPIMetrics(registry: registry, storeFiles: files + [directory.appendingPathComponent("missing")])
        #expect(registry.exposition().contains("tidings_store_bytes 123"))
    }
}
