import Foundation
import Testing
import Tidings
import TidingsTesting

/// The periodic timer, driven by the manual clock.
@Suite struct EventUploaderTimerTests {
    @Test func timerFlushesOnceTheIntervalHasPassed() async throws {
        let harness = UploadHarness { $0.flushInterval = .seconds(30) }
        let ids = harness.enqueue(2)
        await harness.uploader.start()
        #expect(await harness.settle { harness.clock.sleeperCount == 1 })

        harness.clock.advance(by: .seconds(29))
        #expect(await harness.settle { harness.clock.sleeperCount == 1 })
        #expect(harness.transport.requestCount == 0)

        harness.clock.advance(by: .seconds(1))
        #expect(await harness.settle { harness.queue.queuedIDs.isEmpty })
        #expect(harness.server.storedIDs == ids)
        // The timer parks again for the next period.
        #expect(await harness.settle { harness.clock.sleeperCount == 1 })
        await harness.uploader.stop()
    }

    @Test func timerWakesWhenABackoffEndsRatherThanAfterTheInterval() async throws {
        let harness = UploadHarness(script: [.respond(status: 503)]) { $0.flushInterval = .seconds(30) }
        let ids = harness.enqueue(1)
        await harness.uploader.start()
        let failed = await harness.uploader.flush()
        let retryAt = try #require(failed.nextRetryAt)
        let wait = retryAt.millisecondsSince1970 - harness.clock.now.millisecondsSince1970
        #expect(wait < 30_000)
        #expect(await harness.settle { harness.clock.sleeperCount == 1 })

        harness.clock.advance(by: .milliseconds(max(wait, 1)))
        #expect(await harness.settle { harness.server.storedIDs == ids })
        #expect(harness.transport.requestCount == 2)
        await harness.uploader.stop()
    }

    @Test func stopCancelsTheTimer() async throws {
        let harness = UploadHarness { $0.flushInterval = .seconds(30) }
        harness.enqueue(1)
        await harness.uploader.start()
        #expect(await harness.settle { harness.clock.sleeperCount == 1 })
        await harness.uploader.stop()
        #expect(await harness.settle { harness.clock.sleeperCount == 0 })
        harness.clock.advance(by: .seconds(120))
        #expect(await harness.settle { harness.clock.sleeperCount == 0 })
        #expect(harness.transport.requestCount == 0)
        #expect(harness.queue.queuedIDs.count == 1)
    }

    @Test func haltedUploaderKeepsNoTimer() async throws {
        let harness = UploadHarness(script: [.respond(status: 401)]) { $0.flushInterval = .seconds(30) }
        harness.enqueue(1)
        await harness.uploader.start()
        await harness.uploader.flush()
        #expect(await harness.settle { harness.clock.sleeperCount == 0 })
        await harness.uploader.resume()
        #expect(await harness.settle { harness.clock.sleeperCount == 1 })
        await harness.uploader.stop()
    }
}
