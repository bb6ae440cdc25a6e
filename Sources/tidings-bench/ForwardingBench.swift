import Foundation
import TidingsForwarding
import TidingsHTTP
import TidingsModel
import TidingsPush
import TidingsServer
import TidingsStore
import TidingsTesting

/// Event forwarding against ingest, in one run on one machine: a release `tidingsd` on loopback takes
/// 500-event batches on `POST /v1/events` (4 in flight, the SDK's batch size) while its forwarder is paused;
/// then the forwarder is resumed and the same events go to a local webhook receiver that checks every
/// signature and parses every batch; then both run at once. Forwarding keeps up when its rate is at least
/// the ingest rate.
enum ForwardingBench {
    static let batch = 500
    static let secret = "whsec_bench_secret_0123456789abcdef"

    static func run() throws {
        let events = Int(ProcessInfo.processInfo.environment["TIDINGS_BENCH_FORWARD_EVENTS"] ?? "") ?? 100_000
        try APNsBench.blocking { try await measure(total: events - events % batch) }
    }

    static func measure(total: Int) async throws {
        let forwardingBatch = Int(ProcessInfo.processInfo.environment["TIDINGS_BENCH_FORWARD_BATCH"] ?? "") ?? batch
        print("forwarding: \(total) events, ingest batches of \(batch), forwarded batches of \(forwardingBatch)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-fwd-bench-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore(directory: directory)
        let provisioned = try ProvisionedApp.create(
            store: store, dataDirectory: directory, name: "forwarding", bundleID: "com.example.forwarding")
        let received = LockedBox(0)
        let (receiver, receiverURL) = try LoopbackServers.serve(
            { request in
                try WebhookSignature.verify(
                    header: request.headers["tidings-signature"] ?? "", secret: secret, body: Array(request.body),
                    now: Int64(Date().timeIntervalSince1970))
                let events = try JSONValue.parse(request.body)["events"]?.arrayValue?.count ?? 0
                received.withLock { $0 += events }
                return HTTPResponse(status: 204)
            }, threads: 2, logger: .disabled())
        defer { receiver.stopNow() }
        try store.createForwarder(
            ForwarderRecord(
                id: "fwd_bench", appID: provisioned.app.id, kind: .webhook,
                settings: [
                    "url": .string(receiverURL.appendingPathComponent("hook").absoluteString),
                    "secret": .string(secret),
                ], state: .paused, createdAt: 0))

        let tidingsd = try EndToEndBench.startTidingsd(
            dataDirectory: directory, apnsEndpoint: URL(string: "http://127.0.0.1:9")!,
            extraArguments: ["--forwarding-batch-size", String(forwardingBatch)])
        defer {
            tidingsd.process.terminate()
            tidingsd.process.waitUntilExit()
        }
        var clientConfiguration = CurlMultiClient.Configuration()
        clientConfiguration.maxConnectionsPerHost = 4
        // POST /v1/events answers a receipt per event.
        clientConfiguration.maxResponseBodyBytes = 1 << 20
        let client = try CurlMultiClient(configuration: clientConfiguration)
        defer { client.shutdown() }

        // Ingest alone.
        let ingestAlone = try await ingest(
            total: total, offset: 0, client: client, url: tidingsd.url, key: provisioned.serverKey)
        Measure.report("forwarding.ingest_500_event_batches", Double(total) / ingestAlone.seconds, "events/s")

        // Forwarding alone: the backlog just ingested.
        let start = ContinuousClock.now
        try store.setForwarderState(appID: provisioned.app.id, id: "fwd_bench", state: .active)
        try await waitFor { received.withLock { $0 } >= total }
        let forwarding = ContinuousClock.now - start
        Measure.report("forwarding.webhook_backlog", Double(total) / forwarding.seconds, "events/s")

        // Both at once: how far forwarding trails ingest when it ends.
        let bothStart = ContinuousClock.now
        let concurrentIngest = try await ingest(
            total: total, offset: total, client: client, url: tidingsd.url, key: provisioned.serverKey)
        let trailing = 2 * total - received.withLock { $0 }
        try await waitFor { received.withLock { $0 } >= 2 * total }
        let both = ContinuousClock.now - bothStart
        Measure.report("forwarding.concurrent_ingest", Double(total) / concurrentIngest.seconds, "events/s")
        Measure.report("forwarding.concurrent_forwarding", Double(total) / both.seconds, "events/s")
        Measure.report("forwarding.concurrent_trailing_at_ingest_end", Double(trailing), "events")
        Measure.report("forwarding.duplicates", Double(received.withLock { $0 } - 2 * total), "events")
    }

    /// Posts `total` events in 500-event batches, 4 requests in flight; the time it took.
    static func ingest(total: Int, offset: Int, client: CurlMultiClient, url: URL, key: String) async throws -> Duration
    {
        let endpoint = url.appendingPathComponent("v1/events").absoluteString
        // Recent times: the API refuses events from the future or too far in the past.
        let base = Date().millisecondsSince1970 - 3_600_000
        let bodies: [[UInt8]] = try (0..<(total / batch)).map { index in
            let events = (0..<batch).map { item -> JSONValue in
                let number = offset + index * batch + item
                return TidingsEvent(
                    type: number % 4 == 0 ? .delivery : .open, occurredAt: base + Int64(number),
                    installationID: "inst-\(number % 997)", messageID: "msg_1", campaignID: "bench"
                ).json
            }
            return try JSONValue.object(["events": .array(events)]).serialized()
        }
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = 0
            func post(_ body: [UInt8]) async throws {
                let response = try await client.send(
                    HTTP2Request(
                        method: "POST", url: endpoint,
                        headers: [("content-type", "application/json"), ("authorization", "Bearer \(key)")],
                        body: body))
                guard response.status == 200 else {
                    throw APNsBench.Failure(description: "POST /v1/events answered \(response.status)")
                }
            }
            while next < min(4, bodies.count) {
                let body = bodies[next]
                group.addTask { try await post(body) }
                next += 1
            }
            while try await group.next() != nil {
                guard next < bodies.count else { continue }
                let body = bodies[next]
                group.addTask { try await post(body) }
                next += 1
            }
        }
        return ContinuousClock.now - start
    }

    static func waitFor(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(600)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw APNsBench.Failure(description: "forwarding stalled") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
