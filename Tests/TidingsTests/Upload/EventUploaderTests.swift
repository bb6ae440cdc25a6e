import Foundation
import Testing
import Tidings
import TidingsTesting

/// The fault matrix: each test scripts what the network does and checks what the queue and server hold.
@Suite struct EventUploaderTests {
    @Test func uploadsOldestFirstWithTheDocumentedRequest() async throws {
        let harness = UploadHarness()
        let ids = harness.enqueue(3)
        let summary = await harness.uploader.flush()

        #expect(summary.reason == .explicit)
        #expect(summary.requests == 1)
        #expect(summary.sent == 3)
        #expect(summary.accepted == 3)
        #expect(summary.remaining == 0)
        #expect(summary.nextRetryAt == nil)
        #expect(summary.error == nil)
        #expect(harness.server.storedIDs == ids)
        #expect(harness.queue.acknowledgedIDs == ids)

        let request = try #require(harness.transport.requests.first)
        #expect(request.method == "POST")
        #expect(request.url.absoluteString == "https://events.example.test/base/v1/events")
        #expect(request.header("authorization") == "Bearer \(UploadFixtures.appKey)")
        #expect(request.header("Content-Type") == "application/json")
        #expect(request.header("User-Agent") == "Tidings-iOS/0.1.0")
        #expect(request.timeout == .seconds(30))
    }

    @Test func bodyIsTheStoredBytesConcatenatedWithoutReencoding() async throws {
        let harness = UploadHarness()
        let first = UUID()
        let second = UUID()
        // Key order and spacing a re-encoder would change.
        let bodies = [
            #"{"type":"open","event_id":"\#(first.uuidString.lowercased())","occurred_at":1}"#,
            #"{ "event_id" : "\#(second.uuidString.lowercased())" , "type":"open" }"#,
        ]
        let now = harness.clock.now.millisecondsSince1970
        harness.queue.enqueue(eventID: first, type: .init("open"), occurredAt: now, body: Array(bodies[0].utf8))
        harness.queue.enqueue(eventID: second, type: .init("open"), occurredAt: now, body: Array(bodies[1].utf8))
        await harness.uploader.flush()
        let body = try #require(harness.transport.requests.first?.body)
        #expect(String(decoding: body, as: UTF8.self) == #"{"events":["# + bodies.joined(separator: ",") + "]}")
    }

    @Test func timeoutAfterTheServerAcceptedIsSettledByDuplicateReceipts() async throws {
        let server = EventIngestStub()
        let harness = UploadHarness(script: [
            .handle { request throws(TransportError) in
                _ = server.handle(request)
                throw .timeout()
            }
        ])
        let ids = harness.enqueue(4)
        let first = await harness.uploader.flush()
        #expect(first.accepted == 0)
        #expect(first.remaining == 4)
        let retryAt = try #require(first.nextRetryAt)
        #expect(harness.queue.activeLeaseCount == 0)

        harness.clock.advance(
            by: .milliseconds(retryAt.millisecondsSince1970 - harness.clock.now.millisecondsSince1970))
        harness.transport.setWhenExhausted(.handle { server.handle($0) })
        let second = await harness.uploader.flush()
        #expect(second.duplicates == 4)
        #expect(second.accepted == 0)
        #expect(second.remaining == 0)
        #expect(server.storedIDs == ids)
        #expect(server.batches == [ids, ids])
        #expect(harness.queue.acknowledgedIDs == ids)
        #expect(harness.queue.droppedCounts.isEmpty)
    }

    @Test func serverErrorKeepsEverythingThenSucceeds() async throws {
        let harness = UploadHarness(script: [.respond(status: 500, text: "oops")])
        let ids = harness.enqueue(2)
        let failed = await harness.uploader.flush()
        #expect(failed.requests == 1)
        #expect(failed.remaining == 2)
        #expect(harness.queue.queuedIDs == ids)
        let retryAt = try #require(failed.nextRetryAt)
        let state = await harness.uploader.retryState
        #expect(state.consecutiveFailures == 1)
        // First backoff: full jitter under one second.
        #expect(retryAt.millisecondsSince1970 - harness.clock.now.millisecondsSince1970 <= 1000)

        harness.clock.advance(by: .seconds(1))
        let recovered = await harness.uploader.flush()
        #expect(recovered.accepted == 2)
        #expect(recovered.remaining == 0)
        #expect(await harness.uploader.retryState.consecutiveFailures == 0)
        #expect(harness.server.storedIDs == ids)
    }

    @Test(arguments: [("120", 120), ("Thu, 15 Jan 2027 08:02:00 GMT", 0)] as [(String, Int64)])
    func tooManyRequestsWaitsForRetryAfter(header: String, seconds: Int64) async throws {
        let harness = UploadHarness(script: [.respond(status: 429, headers: ["retry-after": header])])
        harness.enqueue(1)
        let now = harness.clock.now.millisecondsSince1970
        // The HTTP-date case names a time relative to the manual clock's start (1_800_000_000 s).
        let expected = seconds > 0 ? now + seconds * 1000 : 1_800_000_000_000 + 120_000
        let limited = await harness.uploader.flush()
        #expect(limited.nextRetryAt?.millisecondsSince1970 == expected)

        harness.clock.advance(by: .seconds(119))
        let early = await harness.uploader.flush()
        #expect(early.requests == 0)
        #expect(early.nextRetryAt?.millisecondsSince1970 == expected)
        #expect(harness.transport.requestCount == 1)

        harness.clock.advance(by: .seconds(1))
        let onTime = await harness.uploader.flush()
        #expect(onTime.requests == 1)
        #expect(onTime.accepted == 1)
    }

    @Test func payloadTooLargeHalvesTheBatchThenGrowsBack() async throws {
        let harness = UploadHarness(script: [.respond(status: 413)]) { $0.maximumBatchEvents = 8 }
        let ids = harness.enqueue(16)
        let summary = await harness.uploader.flush()
        #expect(harness.sentBatches().map(\.count) == [8, 4, 8, 4])
        #expect(summary.accepted == 16)
        #expect(summary.rejected == 0)
        #expect(summary.nextRetryAt == nil)
        #expect(harness.server.storedIDs == ids)
    }

    @Test func singleEventStillTooLargeIsRejectedAloneAndTheQueueMovesOn() async throws {
        let harness = UploadHarness(script: [.respond(status: 413), .respond(status: 413)])
        let ids = harness.enqueue(2)
        let summary = await harness.uploader.flush()
        #expect(harness.sentBatches() == [ids, [ids[0]], [ids[1]]])
        #expect(summary.rejected == 1)
        #expect(summary.accepted == 1)
        #expect(summary.remaining == 0)
        #expect(harness.queue.rejectedIDs == [ids[0]])
        #expect(harness.queue.droppedCounts == ["payload_too_large": 1])
    }

    @Test func poisonBatchIsSplitToIsolateTheBadEvent() async throws {
        let harness = UploadHarness()
        let now = harness.clock.now.millisecondsSince1970
        let good1 = harness.enqueue(2)
        let poison = UUID()
        harness.queue.enqueue(eventID: poison, type: .init("open"), occurredAt: now, body: Array(#"{"event_id":"#.utf8))
        let good2 = harness.enqueue(1)
        let summary = await harness.uploader.flush()

        #expect(harness.server.storedIDs == good1 + good2)
        #expect(harness.queue.rejectedIDs == [poison])
        #expect(harness.queue.droppedCounts == ["bad_request": 1])
        #expect(summary.rejected == 1)
        #expect(summary.accepted == 3)
        #expect(summary.remaining == 0)
        // Never a whole batch dropped: only the single poison event was ever rejected.
        #expect(harness.sentBatches().last == good2)
    }

    @Test func missingReceiptsKeepEventsAndTheyAreSentAgain() async throws {
        let harness = UploadHarness()
        let ids = harness.enqueue(3)
        harness.server.omitReceipt(for: ids[1])
        let partial = await harness.uploader.flush()
        #expect(partial.accepted == 2)
        #expect(partial.remaining == 1)
        #expect(harness.queue.queuedIDs == [ids[1]])
        let retryAt = try #require(partial.nextRetryAt)

        harness.server.stopOmittingReceipts()
        harness.clock.advance(
            by: .milliseconds(retryAt.millisecondsSince1970 - harness.clock.now.millisecondsSince1970))
        let rest = await harness.uploader.flush()
        #expect(harness.sentBatches().last == [ids[1]])
        #expect(rest.duplicates == 1)
        #expect(rest.remaining == 0)
        #expect(harness.server.storedIDs == ids)
    }

    @Test func duplicateUnknownAndOddReceiptsAreHarmless() async throws {
        let harness = UploadHarness()
        let ids = harness.enqueue(3)
        let lower = ids.map { JSONValue.string($0.uuidString.lowercased()) }
        harness.transport.enqueue(
            .respond(
                status: 200,
                body: UploadFixtures.receipts([
                    ["event_id": lower[0], "status": "accepted"],
                    ["event_id": lower[0], "status": "duplicate"],
                    ["event_id": lower[0], "status": "accepted"],
                    ["event_id": .string(UUID().uuidString), "status": "rejected"],
                    ["event_id": .string(UUID().uuidString), "status": "accepted"],
                    ["event_id": lower[1], "status": "duplicate"],
                    ["event_id": lower[2], "status": "postponed"],
                    ["status": "rejected"],
                ])))
        let summary = await harness.uploader.flush()
        #expect(summary.accepted == 1)
        #expect(summary.duplicates == 1)
        #expect(summary.rejected == 0)
        #expect(harness.queue.acknowledgedIDs == [ids[0], ids[1]])
        #expect(harness.queue.queuedIDs == [ids[2]])
        #expect(harness.queue.droppedCounts.isEmpty)
    }

    @Test func rejectedReceiptsDropEventsAloneCountedByCode() async throws {
        let harness = UploadHarness()
        let ids = harness.enqueue(3)
        harness.server.reject(ids[1], error: WireError(code: "missing_field", message: "message_id is required"))
        let summary = await harness.uploader.flush()
        #expect(summary.rejected == 1)
        #expect(summary.accepted == 2)
        #expect(summary.remaining == 0)
        #expect(summary.nextRetryAt == nil)
        #expect(harness.queue.droppedCounts == ["rejected:missing_field": 1])
    }

    @Test(arguments: ["<html>bad gateway</html>", "", #"{"receipts":"#, "{}"])
    func garbageSuccessBodyKeepsEverythingAndBacksOff(body: String) async throws {
        let harness = UploadHarness(script: [.respond(status: 200, text: body)])
        let ids = harness.enqueue(2)
        let summary = await harness.uploader.flush()
        #expect(summary.requests == 1)
        #expect(summary.accepted == 0)
        #expect(summary.remaining == 2)
        #expect(summary.nextRetryAt != nil)
        #expect(harness.queue.queuedIDs == ids)
        #expect(harness.queue.activeLeaseCount == 0)
        #expect(await harness.uploader.retryState.consecutiveFailures == 1)
    }

    @Test(arguments: [401, 403])
    func unauthorizedHaltsWithoutDroppingUntilResumed(status: Int) async throws {
        let harness = UploadHarness(script: [.respond(status: status)])
        let ids = harness.enqueue(3)
        let halted = await harness.uploader.flush()
        #expect(halted.error == .unauthorized(status: status))
        #expect(halted.remaining == 3)
        #expect(await harness.uploader.haltError == .unauthorized(status: status))

        harness.clock.advance(by: .seconds(3600))
        let stillHalted = await harness.uploader.flush(reason: .background)
        #expect(stillHalted.requests == 0)
        #expect(stillHalted.error == .unauthorized(status: status))
        harness.enqueue(60)
        #expect(await harness.uploader.notifyEnqueued() == nil)
        #expect(harness.transport.requestCount == 1)
        #expect(harness.queue.queuedIDs.prefix(3) == ids[...])

        await harness.uploader.replaceAppKey("tk_app_rotated")
        let resumed = await harness.uploader.flush()
        #expect(resumed.error == nil)
        #expect(resumed.accepted == 63)
        #expect(harness.transport.requests.last?.header("Authorization") == "Bearer tk_app_rotated")
        #expect(harness.queue.droppedCounts.isEmpty)
    }

    @Test func resumeClearsAHaltWithTheSameKey() async {
        let harness = UploadHarness(script: [.respond(status: 401)])
        harness.enqueue(1)
        await harness.uploader.flush()
        await harness.uploader.resume()
        #expect(await harness.uploader.haltError == nil)
        let summary = await harness.uploader.flush()
        #expect(summary.accepted == 1)
    }

    @Test func eventsPastTheMaximumAgeAreDroppedBeforeUpload() async throws {
        let harness = UploadHarness()
        let day: Int64 = 24 * 3600
        harness.enqueue(2, secondsAgo: 31 * day)
        let borderline = harness.enqueue(1, secondsAgo: 30 * day - 1)
        let fresh = harness.enqueue(1)
        let summary = await harness.uploader.flush()
        #expect(summary.expired == 2)
        #expect(harness.queue.droppedCounts == ["expired": 2])
        #expect(harness.sentBatches() == [borderline + fresh])
        #expect(summary.remaining == 0)
    }

    @Test func concurrentFlushesNeverOverlapOrDoubleSend() async throws {
        let server = EventIngestStub()
        let harness = UploadHarness { $0.maximumBatchEvents = 5 }
        harness.transport.setWhenExhausted(
            .handle { request in
                // Give the other flushes every chance to start a request of their own.
                for _ in 0..<50 { await Task.yield() }
                return server.handle(request)
            })
        let ids = harness.enqueue(40)
        let uploader = harness.uploader
        let summaries = await withTaskGroup(of: UploadSummary.self) { group in
            for _ in 0..<6 { group.addTask { await uploader.flush() } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(harness.transport.maximumConcurrentRequests == 1)
        #expect(server.storedIDs == ids)
        #expect(summaries.reduce(0) { $0 + $1.accepted } == 40)
        #expect(summaries.reduce(0) { $0 + $1.duplicates } == 0)
        #expect(summaries.reduce(0) { $0 + $1.sent } == 40)
        #expect(harness.transport.requestCount == 8)
    }

    @Test func batchesRespectTheByteLimit() async throws {
        let limit = 2000
        let harness = UploadHarness { $0.maximumBatchBytes = limit }
        let ids = harness.enqueue(25, value: String(repeating: "v", count: 150))
        let summary = await harness.uploader.flush()
        #expect(summary.accepted == 25)
        #expect(harness.server.storedIDs == ids)
        #expect(harness.transport.requestCount > 1)
        for request in harness.transport.requests {
            #expect(request.body.count <= limit)
        }
        // Batches are filled, not one event each.
        #expect(harness.sentBatches().first!.count > 1)
    }

    @Test func anEventLargerThanABatchIsDroppedWithoutARequest() async throws {
        let harness = UploadHarness { $0.maximumBatchBytes = 300 }
        harness.enqueue(1, value: String(repeating: "v", count: 400))
        let small = harness.enqueue(1)
        let summary = await harness.uploader.flush()
        #expect(summary.rejected == 1)
        #expect(harness.queue.droppedCounts == ["too_large": 1])
        #expect(harness.sentBatches() == [small])
    }

    @Test func deadlineFlushCutsTimeoutsAndStopsInTime() async throws {
        let server = EventIngestStub()
        let harness = UploadHarness { $0.maximumBatchEvents = 1 }
        let harnessClock = harness.clock
        harness.transport.setWhenExhausted(
            .handle { request in
                harnessClock.advance(by: .seconds(2))
                return server.handle(request)
            })
        let ids = harness.enqueue(4)
        let summary = await harness.uploader.flush(deadline: .seconds(5))
        #expect(summary.reason == .deadline)
        #expect(summary.deadlineReached)
        #expect(harness.transport.requests.map(\.timeout) == [.seconds(5), .seconds(3), .seconds(1)])
        #expect(server.storedIDs == Array(ids.prefix(3)))
        #expect(summary.remaining == 1)
    }

    @Test func deadlineFlushOnADeadNetworkReturnsAfterOneAttempt() async throws {
        let harness = UploadHarness(script: [.fail(.connectionFailed("unreachable"))])
        harness.enqueue(3)
        let summary = await harness.uploader.flush(deadline: .seconds(5))
        #expect(summary.requests == 1)
        #expect(summary.remaining == 3)
        #expect(summary.nextRetryAt != nil)
    }

    @Test func cancelledRequestKeepsEverythingWithoutBackoff() async throws {
        let harness = UploadHarness(script: [.fail(.cancelled())])
        harness.enqueue(2)
        let summary = await harness.uploader.flush()
        #expect(summary.remaining == 2)
        #expect(summary.nextRetryAt == nil)
        #expect(await harness.uploader.retryState.consecutiveFailures == 0)
        #expect(await harness.uploader.flush().accepted == 2)
    }

    @Test func countThresholdTriggersAFlush() async throws {
        let harness = UploadHarness { $0.flushThreshold = 3 }
        harness.enqueue(2)
        #expect(await harness.uploader.notifyEnqueued() == nil)
        #expect(harness.transport.requestCount == 0)
        harness.enqueue(1)
        let summary = try #require(await harness.uploader.notifyEnqueued())
        #expect(summary.reason == .threshold)
        #expect(summary.accepted == 3)
    }

    @Test func countThresholdWaitsOutABackoff() async throws {
        let harness = UploadHarness(script: [.respond(status: 503)]) { $0.flushThreshold = 1 }
        harness.enqueue(1)
        #expect(await harness.uploader.notifyEnqueued()?.nextRetryAt != nil)
        harness.enqueue(5)
        #expect(await harness.uploader.notifyEnqueued() == nil)
        #expect(harness.transport.requestCount == 1)
    }

    @Test func queueFailureIsReportedAndNothingIsSent() async throws {
        struct DiskFull: Error {}
        let harness = UploadHarness()
        harness.enqueue(2)
        harness.queue.failOperations(with: DiskFull())
        let summary = await harness.uploader.flush()
        #expect(summary.error?.code == "queue_failed")
        #expect(summary.remaining == nil)
        #expect(harness.transport.requestCount == 0)
        harness.queue.failOperations(with: nil)
        #expect(await harness.uploader.flush().accepted == 2)
    }

    @Test func emptyQueueSendsNothing() async {
        let harness = UploadHarness()
        let summary = await harness.uploader.flush()
        #expect(summary.requests == 0)
        #expect(summary.remaining == 0)
    }

    @Test func backoffGrowsWithRepeatedFailuresAndSuccessResetsIt() async throws {
        let harness = UploadHarness(
            script: Array(repeating: .respond(status: 502), count: 5), seed: 3)
        harness.enqueue(1)
        var ceilings: [Int64] = []
        for _ in 0..<5 {
            let now = harness.clock.now.millisecondsSince1970
            let summary = await harness.uploader.flush()
            let wait = try #require(summary.nextRetryAt).millisecondsSince1970 - now
            ceilings.append(wait)
            harness.clock.advance(by: .milliseconds(wait))
        }
        for (failures, wait) in ceilings.enumerated() {
            #expect(wait <= 1000 << failures)
        }
        #expect(await harness.uploader.retryState.consecutiveFailures == 5)
        #expect(await harness.uploader.flush().accepted == 1)
        #expect(await harness.uploader.retryState == RetryState(batchLimit: 500))
    }
}
