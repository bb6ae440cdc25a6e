import Foundation
import Testing
import Tidings
import TidingsTesting

/// The uploader among others: the extension holding a lease, logs, and the summary the CLI prints.
@Suite struct EventUploaderSharingTests {
    @Test func rowsLeasedElsewhereAreNotSentUntilTheLeaseExpires() async throws {
        let harness = UploadHarness()
        let ids = harness.enqueue(3)
        // Another process (the extension) leases the two oldest rows and then dies.
        let held = try #require(try harness.queue.lease(maxEvents: 2, maxBytes: 1 << 20))
        let first = await harness.uploader.flush()
        #expect(harness.sentBatches() == [[ids[2]]])
        #expect(first.remaining == 2)

        harness.clock.advance(by: .milliseconds(held.expiresAt - harness.clock.now.millisecondsSince1970))
        let second = await harness.uploader.flush()
        #expect(harness.sentBatches().last == Array(ids[0..<2]))
        #expect(second.remaining == 0)
        #expect(harness.server.storedIDs == [ids[2], ids[0], ids[1]])
    }

    @Test func theAppKeyNeverReachesTheLogs() async throws {
        let sink = InMemoryLogHandler()
        let harness = UploadHarness(
            script: [
                .fail(.connectionFailed("connection refused")), .respond(status: 503, text: "busy"),
                .respond(status: 200, text: "garbage"), .respond(status: 413), .respond(status: 401),
            ]
        ) {
            $0.logger = Logger(label: "tidings.upload", level: .trace, handler: sink)
        }
        harness.enqueue(3)
        for _ in 0..<4 {
            await harness.uploader.flush()
            harness.clock.advance(by: .seconds(600))
        }
        await harness.uploader.resume()
        #expect(await harness.uploader.flush().accepted == 3)

        #expect(sink.entries.count > 5)
        #expect(sink.entries.allSatisfy { $0.level <= .info })
        #expect(sink.lines.contains { $0.contains("halted") })
        for line in sink.lines {
            #expect(!line.contains(UploadFixtures.appKey))
            #expect(!line.contains("Bearer"))
        }
    }

    @Test func summaryJSONCarriesEveryFigure() async throws {
        let harness = UploadHarness(script: [.respond(status: 401)])
        harness.enqueue(2)
        let summary = await harness.uploader.flush(reason: .background)
        let json = summary.json
        #expect(json["reason"] == "background")
        #expect(json["requests"] == 1)
        #expect(json["sent"] == 2)
        #expect(json["accepted"] == 0)
        #expect(json["remaining"] == 2)
        #expect(json["deadline_reached"] == false)
        #expect(json["next_retry_at"] == nil)
        #expect(json["error"]?["code"] == "unauthorized")
    }

    @Test func summaryJSONHasTheRetryTimeWhileBackingOff() async throws {
        let harness = UploadHarness(script: [.respond(status: 503, headers: ["Retry-After": "30"])])
        harness.enqueue(1)
        let summary = await harness.uploader.flush()
        #expect(summary.json["next_retry_at"] == .integer(harness.clock.now.millisecondsSince1970 + 30_000))
        #expect(summary.json["error"] == nil)
    }
}

/// A queue that forgets to delete acknowledged rows, as a buggy store would.
private final class ForgetfulQueue: EventQueue {
    let base: InMemoryEventQueue

    init(base: InMemoryEventQueue) {
        self.base = base
    }

    func lease(maxEvents: Int, maxBytes: Int) throws -> EventLease? {
        try base.lease(maxEvents: maxEvents, maxBytes: maxBytes)
    }
    func acknowledge(_ eventIDs: [UUID], lease: EventLease) throws {
        try base.release(lease)
    }
    func reject(_ eventIDs: [UUID], reason: String, lease: EventLease) throws {
        try base.reject(eventIDs, reason: reason, lease: lease)
    }
    func release(_ lease: EventLease) throws { try base.release(lease) }
    func dropEvents(olderThan cutoff: Int64) throws -> Int { try base.dropEvents(olderThan: cutoff) }
    func count() throws -> Int { try base.count() }
}

extension EventUploaderSharingTests {
    @Test func aQueueThatLosesDeletesDoesNotCauseAResendLoop() async throws {
        let clock = ManualClock()
        let memory = InMemoryEventQueue(clock: clock)
        let server = EventIngestStub()
        let transport = ScriptedTransport(whenExhausted: .handle { server.handle($0) })
        let uploader = EventUploader(
            configuration: .init(endpoint: UploadFixtures.endpoint, appKey: UploadFixtures.appKey),
            queue: ForgetfulQueue(base: memory), installation: .fixed(UploadFixtures.installation),
            transport: transport,
            clock: clock,
            random: SeededRandomNumberGenerator(seed: 1))
        memory.enqueue(UploadFixtures.event(at: clock.now))
        let summary = await uploader.flush()
        #expect(transport.requestCount == 1)
        #expect(summary.accepted == 1)
        #expect(summary.error?.code == "queue_failed")
    }
}

extension EventUploaderSharingTests {
    @Test(arguments: [
        ("https://t.example/", "https://t.example/v1/events"),
        ("https://t.example", "https://t.example/v1/events"),
        ("https://t.example/tenant/", "https://t.example/tenant/v1/events"),
        ("http://127.0.0.1:8080/base", "http://127.0.0.1:8080/base/v1/events"),
    ])
    func eventsURLIsUnderTheEndpoint(endpoint: String, expected: String) throws {
        var configuration = EventUploader.Configuration(endpoint: try #require(URL(string: endpoint)), appKey: "k")
        #expect(configuration.eventsURL.absoluteString == expected)
        configuration.sdkVersion = "2.3.4"
        #expect(configuration.userAgent == "Tidings-iOS/2.3.4")
    }
}

extension EventUploaderSharingTests {
    @Test func aRefusalOfTheOldKeyDoesNotHaltAfterTheKeyWasReplaced() async throws {
        let uploaderBox = LockedBox<EventUploader?>(nil)
        let harness = UploadHarness(script: [
            .handle { _ in
                // The app rotates its key while the request with the old key is on the wire.
                await uploaderBox.withLock { $0 }?.replaceAppKey("tk_app_new")
                return TransportResponse(status: 401)
            }
        ])
        uploaderBox.withLock { $0 = harness.uploader }
        let ids = harness.enqueue(2)
        let summary = await harness.uploader.flush()
        #expect(summary.error == nil)
        #expect(summary.accepted == 2)
        #expect(await harness.uploader.haltError == nil)
        #expect(
            harness.transport.requests.map { $0.header("Authorization") } == [
                "Bearer \(UploadFixtures.appKey)", "Bearer tk_app_new",
            ])
        #expect(harness.server.storedIDs == ids)
    }
}
