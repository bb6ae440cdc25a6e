import Foundation
import TidingsForwarding
import TidingsHTTP
import TidingsModel
import TidingsPush
import TidingsServer
import TidingsStore
import TidingsTesting

/// What the bench's webhook receiver got: every event id, to count distinct events and duplicates.
struct EventTally: Sendable {
    private var ids = Set<[UInt8]>()
    private(set) var events = 0
    /// When the first event arrived.
    private(set) var firstArrival: ContinuousClock.Instant?
    var unique: Int { ids.count }

    mutating func add(_ batch: [[UInt8]]) {
        if firstArrival == nil && !batch.isEmpty { firstArrival = .now }
        events += batch.count
        for id in batch { ids.insert(id) }
    }

    /// The `event_id` values of a forwarded batch, found by scanning for the key rather than parsing the
    /// body: the receiver shares the machine's two cores with `tidingsd`, and a real receiver's parse is not
    /// what this bench measures. The signature over the whole body is still checked first.
    static func eventIDs(in body: [UInt8]) -> [[UInt8]] {
        let key = Array(#""event_id":""#.utf8)
        var ids: [[UInt8]] = []
        ids.reserveCapacity(512)
        body.withUnsafeBufferPointer { bytes in
            var index = 0
            let end = bytes.count - key.count
            while index <= end {
                if bytes[index] == key[0] && bytes[index + 1] == key[1] && bytes[index + 2] == key[2]
                    && Array(bytes[index..<(index + key.count)]) == key
                {
                    let start = index + key.count
                    var stop = start
                    while stop < bytes.count && bytes[stop] != UInt8(ascii: "\"") { stop += 1 }
                    ids.append(Array(bytes[start..<stop]))
                    index = stop
                } else {
                    index += 1
                }
            }
        }
        return ids
    }
}

/// Event forwarding against ingest, in one run on one machine: a release `tidingsd` on loopback takes
/// 500-event batches on `POST /v1/events` (4 in flight, the SDK's batch size) while its forwarder is paused;
/// then the forwarder is resumed and the same events go to a local webhook receiver that checks every
/// signature and collects every event id (counting duplicates); then both run at once. Forwarding keeps up when its rate is at least
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
        let received = LockedBox(EventTally())
        let (receiver, receiverURL) = try LoopbackServers.serve(
            { request in
                let body = Array(request.body)
                try WebhookSignature.verify(
                    header: request.headers["tidings-signature"] ?? "", secret: secret, body: body,
                    now: Int64(Date().timeIntervalSince1970))
                let ids = EventTally.eventIDs(in: body)
                received.withLock { $0.add(ids) }
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
        let (_, ingestAlone) = try await ingest(
            total: total, offset: 0, client: client, url: tidingsd.url, key: provisioned.serverKey)
        Measure.report("forwarding.ingest_500_event_batches", Double(total) / ingestAlone.seconds, "events/s")

        // Forwarding alone: the backlog just ingested.
        let start = ContinuousClock.now
        try store.setForwarderState(appID: provisioned.app.id, id: "fwd_bench", state: .active)
        try await waitFor { received.withLock { $0.unique } >= total }
        let end = ContinuousClock.now
        // The worker notices a resumed destination at its next reconcile (every second): that start delay is
        // reported on its own, and the rate is measured from the first event that arrived.
        let firstArrival = received.withLock { $0.firstArrival } ?? start
        let forwarding = end - firstArrival
        Measure.report("forwarding.webhook_backlog", Double(total) / forwarding.seconds, "events/s")
        Measure.report("forwarding.webhook_backlog_from_resume", Double(total) / (end - start).seconds, "events/s")
        Measure.report("forwarding.start_delay_after_resume", (firstArrival - start).seconds * 1000, "ms")

        // Both at once: how far forwarding trails ingest when it ends.
        // From the first ingest request (the request bodies are built before it, outside the figures).
        let (bothStart, concurrentIngest) = try await ingest(
            total: total, offset: total, client: client, url: tidingsd.url, key: provisioned.serverKey)
        let trailing = 2 * total - received.withLock { $0.unique }
        try await waitFor { received.withLock { $0.unique } >= 2 * total }
        let both = ContinuousClock.now - bothStart
        Measure.report("forwarding.concurrent_ingest", Double(total) / concurrentIngest.seconds, "events/s")
        Measure.report("forwarding.concurrent_forwarding", Double(total) / both.seconds, "events/s")
        Measure.report("forwarding.concurrent_trailing_at_ingest_end", Double(trailing), "events")
        Measure.report("forwarding.duplicates", Double(received.withLock { $0.events - $0.unique }), "events")
        Measure.report(
            "forwarding.backlog_to_ingest_ratio", ingestAlone.seconds / forwarding.seconds, "x")
        Measure.report(
            "forwarding.concurrent_forwarding_to_ingest_ratio", concurrentIngest.seconds / both.seconds, "x")
    }

    /// Posts `total` events in 500-event batches, 4 requests in flight; when the first request went and the
    /// time they took.
    static func ingest(total: Int, offset: Int, client: CurlMultiClient, url: URL, key: String) async throws -> (
        start: ContinuousClock.Instant, duration: Duration
    ) {
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
        return (start, ContinuousClock.now - start)
    }

    static func waitFor(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(600)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw APNsBench.Failure(description: "forwarding stalled") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
