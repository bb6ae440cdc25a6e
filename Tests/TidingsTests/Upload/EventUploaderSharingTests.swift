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
