import Foundation
import Testing
import TidingsAPNsEmulator
import TidingsHTTP
import TidingsModel
import TidingsPostgres
import TidingsServer
import TidingsStore
import TidingsStoreTesting
import TidingsTesting

/// PostgreSQL restarted under a running tidingsd, during event ingest and a campaign's fan-out: requests that
/// cannot be served answer `503 store_unavailable` (which clients retry), every event acknowledged is
/// stored, the campaign finishes, and the service recovers without being restarted.
@Suite(.serialized) struct PostgresRestartTests {
    static let installations = 150

    @Test func aRestartCostsRetriesNotAcknowledgedData() async throws {
        let cluster = try PostgresTestCluster.makeDedicated()
        defer { cluster.remove() }
        let connection = try cluster.makeDatabase()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-pg-restart-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = try PostgresStore(connectionString: connection)
        let provisioned = try ProvisionedApp.create(
            store: store, dataDirectory: directory, name: "restart", bundleID: "com.example.restart",
            identityVerification: .off)
        let now = Date().millisecondsSince1970
        var tokens: Set<String> = []
        for index in 0..<Self.installations {
            var update = InstallationUpdate()
            let token = String(format: "%064x", index + 1)
            update.apnsToken = .set(token)
            update.consentNotifications = .set(true)
            _ = try store.upsertInstallation(
                appID: provisioned.app.id, installationID: "i\(index)", update: update, now: now)
            tokens.insert(token)
        }

        let emulator = APNsEmulator(
            configuration: .init(keys: [provisioned.trustedKey], topics: ["com.example.restart"]))
        let emulatorHandler = emulator.handler(logger: .disabled())
        let (emulatorServer, emulatorURL) = try LoopbackServers.serve(
            { request in
                if request.path.hasPrefix("/3/") { try await Task.sleep(for: .milliseconds(30)) }
                return try await emulatorHandler(request)
            }, logger: .disabled())
        guard
            case .serve(var configuration) = try ServerConfiguration.resolve(
                arguments: [
                    "--store", connection, "--data-dir", directory.path, "--apns-endpoint",
                    emulatorURL.absoluteString, "--fanout-in-flight", "2", "--fanout-lease", "5",
                ], environment: [:], readFile: { _ in Data() })
        else { throw CocoaError(.featureUnsupported) }
        configuration.fanout.pollInterval = .milliseconds(50)
        let service = try TidingsService(configuration: configuration, logger: .disabled())
        service.start()

        func post(_ path: String, key: String, as installation: String? = nil, _ body: String) async throws
            -> HTTPResponse
        {
            var request = HTTPRequest(method: "POST", path: path)
            request.headers["Authorization"] = "Bearer \(key)"
            if let installation { request.headers[TidingsAPI.installationHeader] = installation }
            request.body = Data(body.utf8)
            return try await service.handler(request)
        }
        let sent = try await post(
            "/v1/messages", key: provisioned.serverKey, #"{"target":{"all":true},"content":{"title":"Restart"}}"#)
        #expect(sent.status == 202, "\(String(decoding: sent.body, as: UTF8.self))")
        let messageID = try #require(try JSONValue.parse(sent.body)["message_id"]?.stringValue)

        // Ingest runs throughout: batches of 20 events, their ids remembered when acknowledged.
        let acknowledged = LockedBox<[UUID]>([])
        let unavailable = LockedBox<[HTTPResponse]>([])
        let unexpected = LockedBox<[String]>([])
        let restarted = LockedBox(false)
        let afterRestart = LockedBox(0)
        let ingest = Task {
            while !Task.isCancelled && afterRestart.withLock({ $0 }) < 10 {
                let ids = (0..<20).map { _ in UUID() }
                let events = ids.map {
                    #"{"event_id":"\#($0.uuidString.lowercased())","type":"open","occurred_at":\#(now),"installation_id":"i1","platform":"ios","message_id":"\#(messageID)"}"#
                }
                let response = try await post(
                    "/v1/events", key: provisioned.appKey, as: "i1", "{\"events\":[\(events.joined(separator: ","))]}")
                switch response.status {
                case 200, 202:
                    // Acknowledged: each receipt says the event is stored (or was already).
                    let receipts = try JSONValue.parse(response.body)["receipts"]?.arrayValue ?? []
                    if receipts.count != ids.count || receipts.contains(where: { $0["status"] == "rejected" }) {
                        unexpected.withLock { $0.append(String(decoding: response.body, as: UTF8.self)) }
                    }
                    acknowledged.withLock { $0 += ids }
                    if restarted.withLock({ $0 }) { afterRestart.withLock { $0 += 1 } }
                case 503: unavailable.withLock { $0.append(response) }
                default:
                    unexpected.withLock {
                        $0.append("\(response.status) \(String(decoding: response.body, as: UTF8.self))")
                    }
                }
            }
        }
        while (emulator.counts["200"] ?? 0) < 20 || acknowledged.withLock({ $0.count }) < 100 {
            try await Task.sleep(for: .milliseconds(10))
        }
        // Down for longer than three of the pool's waits for a connection (up to 5 s each), so a request meets a
        // whole wait inside the outage and is refused: the request in flight when the server stops may spend
        // most of one wait and still be answered (it was on a busy machine, 4.6 s, then 200), and the next,
        // begun with under a wait of the outage left, would reach the server as it comes back. Two waits' worth
        // (11 s) once saw no refusal with `make test`'s two test processes loading the machine.
        try await Task.detached { try cluster.restart(downFor: 16) }.value
        restarted.withLock { $0 = true }
        try await ingest.value

        #expect(unexpected.withLock { $0 }.isEmpty, "\(unexpected.withLock { $0 })")
        let refusals = unavailable.withLock { $0 }
        #expect(!refusals.isEmpty, "requests made while PostgreSQL was down are refused")
        for refusal in refusals {
            #expect(try JSONValue.parse(refusal.body)["error"]?["code"] == "store_unavailable")
            #expect(refusal.headers["Retry-After"] == "1")
        }
        // Everything acknowledged is there, before and after the restart.
        var stored: Set<UUID> = []
        var after: Int64?
        repeat {
            let page = try store.events(appID: provisioned.app.id, query: EventQuery(afterSequence: after, limit: 1000))
            stored.formUnion(page.events.map(\.event.eventID))
            after = page.nextSequence
        } while after != nil
        let promised = Set(acknowledged.withLock { $0 })
        #expect(promised.subtracting(stored).isEmpty, "\(promised.subtracting(stored).count) acknowledged events lost")

        // The campaign finishes; a push whose outcome could not be written goes again after its lease.
        let deadline = Date().addingTimeInterval(60)
        while try store.message(appID: provisioned.app.id, messageID: messageID)?.state != .done, Date() < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(try store.message(appID: provisioned.app.id, messageID: messageID)?.state == .done)
        #expect(try store.messageCounts(messageID: messageID).sent == Self.installations)
        let received = await emulator.collect(topic: "com.example.restart")
        #expect(Set(received.map(\.deviceToken)) == tokens, "every device got the push")
        // The worker drops from its queue what waited past its lease while the database was down, so those
        // rows go out once, from the next claim: only a push in flight as a lease ran out can repeat. That is
        // at most the pushes in flight (2) at the end of each claim's lease, and the queue holds rows of two
        // claims at most (it claims again when half empty).
        #expect(received.count - Self.installations <= 2 * 2, "repeats: \(received.count - Self.installations)")

        let ready = try await service.handler(HTTPRequest(method: "GET", path: "/readyz"))
        #expect(ready.status == 200, "the service recovered by itself")
        await service.stop()
        await emulatorServer.shutdown()
    }
}
