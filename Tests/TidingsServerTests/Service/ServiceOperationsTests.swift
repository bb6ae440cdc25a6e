import Foundation
import Testing
import TidingsHTTP
import TidingsModel
import TidingsPush
import TidingsServer
import TidingsStore

/// tidingsd's operations routes as the service wires them: readiness over the real store, workers and
/// credential files, and where `/metrics` is served and with what token.
@Suite struct ServiceOperationsTests {
    static let token = "scrape-me-with-this-token-42"

    /// A service over a fresh data directory, removed when `body` returns.
    static func withService(
        _ configure: (inout ServerConfiguration) -> Void = { _ in },
        _ body: (TidingsService, URL) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-ops-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = ServerConfiguration(dataDirectory: directory.path)
        // Every call runs the checks again, so a test sees the state it just made.
        configuration.readinessCacheDuration = .zero
        configure(&configuration)
        let service = try TidingsService(configuration: configuration, logger: .disabled())
        try await body(service, directory)
        await service.stop()
    }

    static func get(_ handler: HTTPHandler, _ path: String, authorization: String? = nil) async throws
        -> (status: Int, body: JSONValue?, text: String)
    {
        var headers = HTTPHeaders()
        headers["Authorization"] = authorization
        let response = try await handler(HTTPRequest(method: "GET", path: path, headers: headers))
        return (response.status, try? JSONValue.parse(response.body), String(decoding: response.body, as: UTF8.self))
    }

    @Test func readyOnceTheWorkersRunWithStoreAndCredentialsChecked() async throws {
        try await Self.withService { service, _ in
            let before = try await Self.get(service.handler, "/readyz")
            #expect(before.status == 503)
            #expect(before.body?["status"]?.stringValue == "not_ready")
            #expect(before.body?["checks"]?["fanout"]?["status"]?.stringValue == "failed")
            #expect(before.body?["checks"]?["fanout"]?["message"]?.stringValue == "the fan-out workers are not running")
            #expect(before.body?["checks"]?["store"]?["status"]?.stringValue == "ok")
            // Liveness does not depend on any of it.
            #expect(try await Self.get(service.handler, "/healthz").status == 200)

            service.start()
            let after = try await Self.get(service.handler, "/readyz")
            #expect(after.status == 200)
            #expect(
                after.text
                    == #"{"checks":{"credentials":{"status":"ok"},"fanout":{"status":"ok"},"forwarding":{"status":"ok"},"store":{"status":"ok"}},"status":"ready"}"#
            )
        }
    }

    @Test func aCorruptedCredentialsFileMakesItNotReadyNamingTheApp() async throws {
        try await Self.withService { service, directory in
            service.start()
            let administration = AppAdministration(store: service.store)
            let fine = try administration.createApp(name: "fine", bundleID: "com.example.fine")
            let broken = try administration.createApp(name: "broken", bundleID: "com.example.broken")
            #expect(try await Self.get(service.handler, "/readyz").status == 200)

            // Valid ids, but the stored key is not a key any more (a bad restore, a hand-edited row).
            try service.store.savePushCredential(
                PushCredentialRecord(
                    appID: broken.id, provider: .apns, secret: Array("-----BEGIN PRIVATE KEY-----\ngarbage\n".utf8),
                    settings: #"{"key_id":"ABC123DEFG","team_id":"DEF123GHIJ"}"#, updatedAt: 1))
            try service.store.savePushCredential(
                PushCredentialRecord(
                    appID: broken.id, provider: .fcm, secret: Array("{not json".utf8), settings: "{}", updatedAt: 1))

            let report = try await Self.get(service.handler, "/readyz")
            #expect(report.status == 503)
            let credentials = report.body?["checks"]?["credentials"]
            #expect(credentials?["status"]?.stringValue == "failed")
            let message = try #require(credentials?["message"]?.stringValue)
            #expect(message.contains("app \(broken.id): APNs invalid_key"))
            #expect(message.contains("app \(broken.id): FCM malformed_json"))
            #expect(!message.contains(fine.id))
            // Served on the API address: no paths of the data directory.
            #expect(!message.contains(directory.path))
            #expect(report.body?["checks"]?["store"]?["status"]?.stringValue == "ok")

            try service.store.removePushCredential(appID: broken.id, provider: .fcm)
            try service.store.removePushCredential(appID: broken.id, provider: .apns)
            #expect(try await Self.get(service.handler, "/readyz").status == 200)
        }
    }

    @Test func aStoreThatRefusesWritesFailsItsCheck() async {
        struct ReadOnly: Error, CustomStringConvertible {
            var description: String { "attempt to write a readonly database" }
        }
        let probe = ReadinessProbe(checks: [
            ServiceReadiness.storeAcceptsWrites { throw ReadOnly() }, ServiceReadiness.fanoutRunning { true },
        ])
        let report = await probe.report()
        #expect(report.status == 503)
        #expect(
            report.outcomes == [
                .init(name: "store", failure: "the store refuses a write: attempt to write a readonly database"),
                .init(name: "fanout"),
            ])
    }

    @Test func appsThatCannotBeListedFailTheCredentialsCheck() async {
        struct Locked: Error {}
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-none-\(UUID())")
        let check = ServiceReadiness.credentialsLoad(
            appIDs: { throw Locked() }, apns: APNsCredentialsStore(dataDirectory: directory),
            fcm: FCMCredentialsStore(dataDirectory: directory))
        let report = await ReadinessProbe(checks: [check]).report()
        #expect(report.outcomes.first?.failure?.hasPrefix("the apps cannot be listed") == true)
    }

    @Test func byDefaultMetricsAreOpenOnTheAPIAddress() async throws {
        try await Self.withService { service, _ in
            let scrape = try await Self.get(service.handler, "/metrics")
            #expect(scrape.status == 200)
            #expect(scrape.text.contains("# TYPE"))
        }
    }

    @Test func metricsCountInstallationsWithoutATimeZone() async throws {
        try await Self.withService { service, _ in
            try service.store.createApp(AppRecord(id: "app_tz", name: "tz", bundleID: "com.example.tz", createdAt: 0))
            var known = InstallationUpdate()
            known.timezone = .set("Asia/Tokyo")
            _ = try service.store.upsertInstallation(appID: "app_tz", installationID: "known", update: known, now: 0)
            for id in ["unknown-1", "unknown-2"] {
                _ = try service.store.upsertInstallation(appID: "app_tz", installationID: id, update: .init(), now: 0)
            }
            let scrape = try await Self.get(service.handler, "/metrics")
            #expect(scrape.text.contains("\ntidings_installations_without_timezone 2\n"), "\(scrape.text)")
        }
    }

    @Test func anAdminAddressTakesMetricsOffTheAPIAddress() async throws {
        try await Self.withService({ $0.adminHTTP = HTTPServer.Configuration(port: 0) }) { service, _ in
            let api = try await Self.get(service.handler, "/metrics")
            #expect(api.status == 404)
            #expect(api.body?["error"]?["code"]?.stringValue == "not_found")
            #expect(try await Self.get(service.adminHandler, "/metrics").status == 200)
            // Probes answer on both; the API answers on the API address only.
            for handler in [service.handler, service.adminHandler] {
                #expect(try await Self.get(handler, "/healthz").status == 200)
                #expect(try await Self.get(handler, "/readyz").status == 503)  // workers not started
            }
            #expect(try await Self.get(service.adminHandler, "/v1/installations").status == 404)
        }
    }

    @Test(arguments: [false, true])
    func aMetricsTokenGuardsMetricsWhereverTheyAre(onAdminAddress: Bool) async throws {
        try await Self.withService({ configuration in
            configuration.metricsToken = BearerToken(Self.token)
            if onAdminAddress { configuration.adminHTTP = HTTPServer.Configuration(port: 0) }
        }) { service, _ in
            let handler = onAdminAddress ? service.adminHandler : service.handler
            let refused = try await Self.get(handler, "/metrics")
            #expect(refused.status == 401)
            #expect(refused.body?["error"]?["code"]?.stringValue == "unauthorized")
            #expect(try await Self.get(handler, "/metrics", authorization: "Bearer not-the-token-at-all").status == 401)
            #expect(try await Self.get(handler, "/metrics", authorization: "Bearer \(Self.token)").status == 200)
            #expect(try await Self.get(handler, "/healthz").status == 200)
        }
    }
}
