import Foundation
import Testing
import TidingsForwarding
import TidingsHTTP
import TidingsMetrics
import TidingsModel
import TidingsPush
import TidingsStore
import TidingsStoreTesting
import TidingsTestSupport

/// The worker against stand-ins it does not know are stand-ins: a webhook receiver that fails on schedule,
/// a Treasure Data ingest endpoint that checks what the real one needs, and a directory.
@Suite(.serialized) struct ForwardingWorkerTests {
    let store: any Store
    let client: CurlMultiClient
    /// Where file destinations write; removed with the suite instance when the test ends.
    let scratch: TemporaryDirectory
    var root: URL { scratch.url }

    init() throws {
        store = try StoreBackend.sqlite.makeStore()
        try store.createApp(AppRecord(id: "app_a", name: "a", bundleID: "com.example.a", createdAt: 0))
        client = try CurlMultiClient()
        scratch = try TemporaryDirectory("fwd-tests")
    }

    /// One batch in flight unless asked: most tests check the order of a single sender's batches.
    func worker(
        batchSize: Int = 20, batchesInFlight: Int = 1, timeout: Duration = .milliseconds(700),
        metrics: MetricsRegistry? = nil
    ) -> ForwardingWorker {
        var configuration = ForwardingWorker.Configuration()
        configuration.batchSize = batchSize
        configuration.batchesInFlight = batchesInFlight
        configuration.idleInterval = .milliseconds(20)
        configuration.reconcileInterval = .milliseconds(50)
        configuration.backoff = ForwardingBackoff(initial: .milliseconds(20), maximum: .milliseconds(200))
        configuration.unhealthyAfter = .milliseconds(100)
        return ForwardingWorker(
            store: store,
            destinations: DestinationFactory(fileRoot: root, httpClient: client, requestTimeout: timeout),
            configuration: configuration, logger: Logger(label: "test", level: .critical), metrics: metrics)
    }

    /// `count` events over `installations` installations, stored in batches of 10 as the API would.
    @discardableResult
    func storeEvents(_ count: Int, installations: Int = 3, type: EventType = .open, campaign: String? = "spring")
        throws -> [TidingsEvent]
    {
        let events = (0..<count).map { index in
            TidingsEvent(
                type: type, occurredAt: 1_800_000_000_000 + Int64(index),
                installationID: "inst-\(index % installations)",
                userID: "user-\(index % installations)", campaignID: campaign)
        }
        for chunk in stride(from: 0, to: events.count, by: 10) {
            _ = try store.insertEvents(
                appID: "app_a", events: Array(events[chunk..<min(chunk + 10, events.count)]),
                receivedAt: Date().millisecondsSince1970 - 10_000)
        }
        return events
    }

    func addForwarder(
        _ kind: ForwarderRecord.Kind, _ settings: [String: JSONValue], filter: ForwarderRecord.Filter = .init()
    ) throws -> ForwarderRecord {
        let record = ForwarderRecord(
            id: "fwd_\(kind.rawValue)", appID: "app_a", kind: kind,
            settings: try ForwarderSettings.validated(kind: kind, settings), filter: filter, createdAt: 0)
        try store.createForwarder(record)
        return record
    }

    func eventually(_ seconds: Double = 15, _ condition: () throws -> Bool) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("the condition did not hold within \(seconds) s")
    }

    @Test func aWebhookGetsEveryEventInOrderThroughFailuresTimeoutsAndADroppedConnection() async throws {
        let receiver = try WebhookReceiver(schedule: [
            .status(500), .rateLimited(seconds: 1), .stall(.seconds(2)), .ok, .storeThenDrop, .status(503),
        ])
        let sent = try storeEvents(60)
        let forwarder = try addForwarder(.webhook, ["url": .string(receiver.url), "secret": .string(receiver.secret)])
        let worker = worker()
        worker.start()
        try await eventually { receiver.events.count >= 60 }
        try await eventually {
            let stored = try store.forwarder(appID: "app_a", id: forwarder.id)
            let latest = try store.latestEventSequence(appID: "app_a")
            return stored?.failingSince == nil && stored?.cursor == latest
        }
        await worker.stop()
        defer { client.shutdown() }

        #expect(receiver.signatureFailures == 0)
        let ids = receiver.events.compactMap { $0.objectValue?["event_id"]?.stringValue }
        // Every event arrived; the only duplicates are the batch whose answer was cut off.
        #expect(Set(ids) == Set(sent.map(\.eventID.lowercasedString)))
        #expect(ids.count - Set(ids).count <= 20)
        // Order per installation: each installation's events arrive in the order they were stored, counting
        // each event's first arrival.
        var firstArrival: [String] = []
        var seen = Set<String>()
        for id in ids where seen.insert(id).inserted { firstArrival.append(id) }
        #expect(firstArrival == sent.map(\.eventID.lowercasedString))
        // The 429's Retry-After was honoured: the next attempt came at least a second later.
        let requests = receiver.requests
        let limited = try #require(requests.firstIndex { $0.1 == 429 })
        #expect(requests[limited + 1].0.timeIntervalSince(requests[limited].0) >= 0.95)
        // Batches keep their ids across retries, so receivers can also de-duplicate whole batches.
        #expect(receiver.batches.allSatisfy { $0.batchID.hasPrefix("fwd_webhook-") })
    }

    @Test func lagGaugesStayCurrentWhileADestinationHangsOnABatch() async throws {
        // The first batch hangs for longer than the test looks: the sending loop is stuck inside it.
        let receiver = try WebhookReceiver(schedule: [.stall(.seconds(30))])
        try storeEvents(30)
        _ = try addForwarder(.webhook, ["url": .string(receiver.url), "secret": .string(receiver.secret)])
        let registry = MetricsRegistry()
        let worker = worker(timeout: .seconds(60), metrics: registry)
        worker.start()
        defer { client.shutdown() }
        let labels = ["app_id": "app_a", "forwarder_id": "fwd_webhook", "kind": "webhook"]
        let lagSeconds = registry.gauge(name: "tidings_forwarding_lag_seconds", help: "", labels: labels)
        let lagEvents = registry.gauge(name: "tidings_forwarding_lag_events", help: "", labels: labels)
        try await eventually { receiver.requests.count == 1 && lagEvents.value == 30 }
        let first = lagSeconds.value
        // Events stored while the batch hangs are counted, and the oldest one's age keeps growing.
        try storeEvents(5)
        try await eventually(5) { lagEvents.value == 35 && lagSeconds.value >= first + 2 }
        #expect(receiver.requests.count == 1)
        await worker.stop()
    }

    @Test func aRefusedBatchIsParkedAndDoesNotHoldBackTheRestAndAReplayDeliversIt() async throws {
        let receiver = try WebhookReceiver(schedule: [.status(422)])
        try storeEvents(40)
        let forwarder = try addForwarder(.webhook, ["url": .string(receiver.url), "secret": .string(receiver.secret)])
        let worker = worker()
        worker.start()
        try await eventually {
            let cursor = try store.forwarder(appID: "app_a", id: forwarder.id)?.cursor ?? 0
            return receiver.events.count == 20 && cursor > 20
        }
        let letters = try store.deadLetters(appID: "app_a", forwarderID: forwarder.id)
        #expect(letters.count == 1)
        #expect(letters.first?.status == 422 && letters.first?.eventCount == 20)
        #expect(letters.first?.error == "scheduled failure")

        #expect(try store.requestDeadLetterReplay(appID: "app_a", forwarderID: forwarder.id, ids: nil, now: 0) == 1)
        try await eventually { try store.deadLetters(appID: "app_a", forwarderID: forwarder.id).isEmpty }
        await worker.stop()
        client.shutdown()
        #expect(Set(receiver.events.compactMap { $0.objectValue?["event_id"]?.stringValue }).count == 40)
    }

    @Test func aFailingDestinationTurnsUnhealthyAndPausingStopsIt() async throws {
        let receiver = try WebhookReceiver(schedule: Array(repeating: .status(500), count: 1000))
        try storeEvents(5)
        let forwarder = try addForwarder(.webhook, ["url": .string(receiver.url), "secret": .string(receiver.secret)])
        let worker = worker()
        worker.start()
        try await eventually { try !worker.unhealthyDestinations().isEmpty }
        let unhealthy = try worker.unhealthyDestinations()
        #expect(unhealthy.first?.contains(forwarder.id) == true)
        #expect(unhealthy.first?.contains("HTTP 500") == true)
        #expect(unhealthy.first?.contains(receiver.secret) == false)
        try store.setForwarderState(appID: "app_a", id: forwarder.id, state: .paused)
        try await Task.sleep(for: .milliseconds(400))
        let count = receiver.requests.count
        try await Task.sleep(for: .milliseconds(400))
        #expect(receiver.requests.count == count)
        #expect(try worker.unhealthyDestinations().isEmpty)
        await worker.stop()
        client.shutdown()
    }

    @Test func treasureDataGetsPushEventRowsWithTheWriteKeyAtTheTablesPath() async throws {
        let rows = LockedBox<[[String: JSONValue]]>([])
        let refusals = LockedBox<[String]>([])
        let standIn = try LoopbackServer(routes: [
            HTTPRoute("POST", "/{database}/{table}") { request in
                // What the ingest API needs: the write key as `TD1 <key>`, its content type, 1-500 records.
                guard request.headers["authorization"] == "TD1 1/write-key" else {
                    refusals.withLock { $0.append("key") }
                    return HTTPResponse(status: 401, body: Data(#"{"error":"unauthorized"}"#.utf8))
                }
                guard request.pathParameters["database"] == "mobile", request.pathParameters["table"] == "push_events",
                    request.headers["content-type"] == "application/vnd.treasuredata.v1+json",
                    let records = try JSONText.parse(request.body).objectValue?["records"]?.arrayValue,
                    (1...500).contains(records.count)
                else {
                    refusals.withLock { $0.append("shape") }
                    return HTTPResponse(status: 400)
                }
                rows.withLock { $0 += records.compactMap(\.objectValue) }
                return HTTPResponse(status: 200, body: Data(#"{"receipts":[]}"#.utf8))
            }
        ])
        try storeEvents(30, type: .open)
        try storeEvents(3, type: .dismiss, campaign: "other")
        _ = try addForwarder(
            .treasureData,
            [
                "endpoint": .string("http://127.0.0.1:\(standIn.port)"), "database": "mobile", "table": "push_events",
                "write_key": "1/write-key",
            ], filter: .init(eventTypes: ["open"], droppedFields: ["user_id"]))
        let wrongKey = ForwarderRecord(
            id: "fwd_wrong_key", appID: "app_a", kind: .treasureData,
            settings: [
                "endpoint": .string("http://127.0.0.1:\(standIn.port)"), "database": "mobile", "table": "push_events",
                "write_key": "1/stale",
            ], createdAt: 0)
        try store.createForwarder(wrongKey)
        let worker = worker(batchSize: 1000)
        worker.start()
        try await eventually {
            let letters = try store.deadLetters(appID: "app_a", forwarderID: "fwd_wrong_key")
            return rows.withLock { $0.count } == 30 && letters.count == 1
        }
        await worker.stop()
        client.shutdown()
        let stored = rows.withLock { $0 }
        #expect(stored.allSatisfy { $0["type"] == "open" && $0["user_id"] == nil && $0["campaign_id"] == "spring" })
        #expect(stored.allSatisfy { $0["time"]?.integerValue == 1_800_000_000 && $0["platform"] == "ios" })
        #expect(stored.allSatisfy { $0["message_id"] == nil && $0["event_id"]?.stringValue != nil })
        #expect(refusals.withLock { $0 }.allSatisfy { $0 == "key" })
        let letter = try #require(try store.deadLetters(appID: "app_a", forwarderID: "fwd_wrong_key").first)
        #expect(letter.status == 401 && !letter.error.contains("1/stale"))
    }

    @Test func filesGetEveryEventAsNDJSONRotatedBySize() async throws {
        let sent = try storeEvents(50)
        _ = try addForwarder(.file, ["directory": "exports", "max_file_bytes": 4096])
        let worker = worker(batchSize: 10)
        worker.start()
        let directory = root.appendingPathComponent("exports")
        func lines() throws -> [String] {
            // Files are numbered in the order they were started: "fwd_file-3.ndjson".
            func number(_ name: String) -> Int {
                let stem = name.split(separator: "-").last?.split(separator: ".").first
                return stem.flatMap { Int($0) } ?? 0
            }
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted {
                number($0) < number($1)
            }
            return try names.flatMap { name in
                try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8).split(separator: "\n")
                    .map(String.init)
            }
        }
        try await eventually { try lines().count == 50 }
        await worker.stop()
        client.shutdown()
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(files.count > 1)
        #expect(files.allSatisfy { $0.hasPrefix("fwd_file-") && $0.hasSuffix(".ndjson") })
        for name in files {
            let size = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path)[
                .size]
            #expect((size as? Int ?? 0) <= 4096)
        }
        let ids = try lines().map { try JSONText.parse(Data($0.utf8)).objectValue?["event_id"]?.stringValue ?? "" }
        #expect(ids == sent.map(\.eventID.lowercasedString))
    }

    /// An erasure of `user-1`, as the server makes it (the digest and pseudonym are the server's business).
    func eraseUserOne() throws {
        _ = try store.eraseUser(
            UserErasure(
                appID: "app_a", userID: "user-1", pseudonym: "erased:0123456789abcdef0123456789abcdef",
                digest: Array(repeating: 3, count: 32), erasedAt: 1_800_000_100_000))
    }

    @Test func everyDestinationGetsAUserDeletedRecordAndItLeavesTheQueueOnceDelivered() async throws {
        let receiver = try WebhookReceiver(schedule: [.status(503)])
        try storeEvents(6)
        // The filter keeps only deliveries, and the events are opens: the record goes all the same.
        let webhook = try addForwarder(
            .webhook, ["url": .string(receiver.url), "secret": .string(receiver.secret)],
            filter: .init(eventTypes: ["delivery"]))
        let file = try addForwarder(.file, ["directory": "exports"])
        try eraseUserOne()
        #expect(try store.erasureNotices(forwarderID: webhook.id, limit: 10).count == 1)
        let worker = worker()
        worker.start()
        try await eventually {
            try store.erasureNotices(forwarderID: webhook.id, limit: 10).isEmpty
                && store.erasureNotices(forwarderID: file.id, limit: 10).isEmpty
        }
        let directory = root.appendingPathComponent("exports")
        try await eventually {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            return names.contains { name in
                let text = (try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)) ?? ""
                return text.contains("user.deleted")
            }
        }
        await worker.stop()
        client.shutdown()

        let records = receiver.events.filter { $0["type"] == "user.deleted" }
        #expect(records.count >= 1, "delivered after the 503, never dropped")
        let record = try #require(records.first?.objectValue)
        #expect(record["user_id"] == "user-1")
        #expect(record["value"] == "erased:0123456789abcdef0123456789abcdef")
        #expect(record["occurred_at"] == .integer(1_800_000_100_000))
        #expect(record["platform"] == "server")
        #expect(record["event_id"]?.stringValue?.hasPrefix("fwd_webhook-ue-") == true)
        #expect(receiver.signatureFailures == 0)
        #expect(!receiver.events.contains { $0["type"] == "open" }, "the filter still holds events back")
    }

    @Test func aRefusedUserDeletedRecordStaysQueued() async throws {
        let receiver = try WebhookReceiver(schedule: Array(repeating: .status(400), count: 50))
        let webhook = try addForwarder(.webhook, ["url": .string(receiver.url), "secret": .string(receiver.secret)])
        try eraseUserOne()
        let worker = worker()
        worker.start()
        try await eventually { receiver.requests.contains { $0.1 == 400 } }
        await worker.stop()
        client.shutdown()
        #expect(try store.erasureNotices(forwarderID: webhook.id, limit: 10).map(\.userID) == ["user-1"])
        #expect(try store.deadLetters(appID: "app_a", forwarderID: webhook.id).isEmpty)
        #expect(try store.forwarder(appID: "app_a", id: webhook.id)?.lastError?.isEmpty == false)
    }

    @Test func aBackfillReplaysATimeRangeBesideTheLiveCursor() async throws {
        let receiver = try WebhookReceiver()
        let sent = try storeEvents(30)
        var record = try addForwarder(.webhook, ["url": .string(receiver.url), "secret": .string(receiver.secret)])
        // Started "now": the live cursor is past every stored event.
        record.cursor = try store.latestEventSequence(appID: "app_a")
        try store.removeForwarder(appID: "app_a", id: record.id)
        try store.createForwarder(record)
        try store.startForwarderBackfill(
            appID: "app_a", id: record.id, since: 1_800_000_000_005, until: 1_800_000_000_015)
        let worker = worker()
        worker.start()
        try await eventually {
            let backfill = try store.forwarder(appID: "app_a", id: record.id)?.backfill
            return backfill == nil && receiver.events.count == 10
        }
        await worker.stop()
        client.shutdown()
        #expect(
            receiver.events.compactMap { $0.objectValue?["event_id"]?.stringValue }
                == sent[5..<15].map(\.eventID.lowercasedString))
    }

    @Test func aBacklogGoesOutSideBySideInOrderPerInstallationAndResumesAfterARestart() async throws {
        let receiver = try WebhookReceiver(schedule: [.ok, .status(500), .ok, .storeThenDrop, .ok, .status(503)])
        let sent = try storeEvents(400, installations: 7)
        let forwarder = try addForwarder(.webhook, ["url": .string(receiver.url), "secret": .string(receiver.secret)])
        let first = worker(batchSize: 20, batchesInFlight: 4)
        first.start()
        try await eventually { receiver.events.count >= 120 }
        await first.stop()
        // Stopped mid-backlog: the cursor is where a delivered page ended, and a new worker resumes there.
        let stopped = try #require(try store.forwarder(appID: "app_a", id: forwarder.id)).cursor
        #expect(stopped > 0)
        try storeEvents(40, installations: 7)
        let second = worker(batchSize: 20, batchesInFlight: 4)
        second.start()
        let all = sent.count + 40
        try await eventually {
            Set(receiver.events.compactMap { $0.objectValue?["event_id"]?.stringValue }).count == all
        }
        try await eventually {
            try store.forwarder(appID: "app_a", id: forwarder.id)?.cursor == store.latestEventSequence(appID: "app_a")
        }
        await second.stop()
        client.shutdown()

        #expect(receiver.signatureFailures == 0)
        let stored = try store.events(appID: "app_a", query: EventQuery(limit: 1000)).events
        #expect(stored.count == all)
        let batches = receiver.batches
        #expect(batches.allSatisfy { $0.events.count <= 20 })
        // Order per installation: each installation's events first arrive in the order they were stored.
        var seen = Set<String>()
        var arrivals: [String: [String]] = [:]
        for event in receiver.events {
            guard let object = event.objectValue, let id = object["event_id"]?.stringValue,
                let installation = object["installation_id"]?.stringValue, seen.insert(id).inserted
            else { continue }
            arrivals[installation, default: []].append(id)
        }
        for installation in Set(stored.map(\.event.installationID)) {
            let expected = stored.filter { $0.event.installationID == installation }.map(
                \.event.eventID.lowercasedString)
            #expect(arrivals[installation] == expected)
        }
        // Pages were split: batches sent side by side name sequence ranges that overlap. (Which installations
        // each holds is ForwardingLanesTests' concern: a page resent after the restart may be split anew.)
        let overlapping = batches.indices.contains { index in
            batches[(index + 1)...].contains {
                $0.batchID != batches[index].batchID
                    && Self.range($0.batchID).overlaps(Self.range(batches[index].batchID))
            }
        }
        #expect(overlapping)
    }

    /// The sequence range in a batch id, `<forwarder>-<first>-<last>`.
    static func range(_ batchID: String) -> ClosedRange<Int64> {
        let parts = batchID.split(separator: "-")
        let first = Int64(parts[parts.count - 2]) ?? 0
        return first...max(first, Int64(parts[parts.count - 1]) ?? 0)
    }
}
