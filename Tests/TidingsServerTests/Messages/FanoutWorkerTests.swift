import Foundation
import Testing
import TidingsAPNsEmulator
import TidingsHTTP
import TidingsMetrics
import TidingsModel
import TidingsPush
import TidingsServer
import TidingsTesting

@testable import TidingsStore

@Suite struct FanoutWorkerTests {
    /// Registers `count` installations and posts one alert to all; returns the message id.
    func queue(_ fixture: MessageFixture, count: Int) async throws -> String {
        for index in 1...count { try await fixture.register("inst-\(index)", seed: index) }
        let reply = try await fixture.send(MessageFixture.alert(["all": true]))
        #expect(reply.status == 202)
        return try #require(reply.json["message_id"]?.stringValue)
    }

    /// A worker idle on a clock that never moves sends nothing until it is woken, then sends at once: how a
    /// journey's step message skips the poll interval.
    @Test func aWakeEndsTheIdleWaitAtOnce() async throws {
        let fixture = try MessageFixture()
        let worker = fixture.worker()
        let running = Task { await worker.run() }
        try await Task.sleep(for: .milliseconds(200))
        _ = try await queue(fixture, count: 3)
        try await Task.sleep(for: .milliseconds(300))
        #expect(fixture.provider.pushes.isEmpty, "the worker waits for its poll while the clock stands still")
        worker.wake()
        let deadline = ContinuousClock.now + .seconds(10)
        while fixture.provider.pushes.count < 3 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(fixture.provider.pushes.count == 3)
        worker.requestStop()
        await running.value
    }

    /// After a claim that found fewer deliveries than it asked for, the next waits the short-claim interval,
    /// so a stream of one-push messages is claimed some at a time; a wake still claims at once.
    @Test func aShortClaimIsFollowedByTheNextOnlyAfterItsIntervalUnlessWoken() async throws {
        let fixture = try MessageFixture()
        for index in 1...3 { try await fixture.register("inst-\(index)", seed: index) }
        let worker = fixture.worker(shortClaimInterval: .seconds(2))
        let running = Task { await worker.run() }
        try await Task.sleep(for: .milliseconds(200))
        func sent(_ count: Int, within seconds: Double) async throws -> Bool {
            let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
            while fixture.provider.pushes.count < count && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            return fixture.provider.pushes.count >= count
        }
        func post() async throws {
            #expect(try await fixture.send(MessageFixture.alert(["all": true])).status == 202)
        }

        try await post()
        worker.wake()
        #expect(try await sent(3, within: 10), "woken, it claims the three at once")
        // The claim was short (3 of 500): what is queued now waits for the interval, then goes out.
        try await post()
        try await Task.sleep(for: .milliseconds(300))
        #expect(fixture.provider.pushes.count == 3, "not claimed within the interval")
        #expect(try await sent(6, within: 10), "claimed once the interval has passed")
        // A wake ends the interval's wait.
        try await post()
        worker.wake()
        #expect(try await sent(9, within: 1.5), "woken, it claims before the interval ends")
        worker.requestStop()
        await running.value
    }

    /// Outcomes are written beside the sending, but a store that falls a whole batch behind stops the sending:
    /// answers it has not taken are what a lost claim would send twice. Here the store's writer is held while
    /// pushes answer at once; the worker sends at most its window and two batches more, then all once released.
    @Test func aStoreThatFallsABatchBehindStopsTheSendingUntilItCatchesUp() async throws {
        let fixture = try MessageFixture()
        let messageID = try await queue(fixture, count: 200)
        let store = try #require(fixture.store as? SQLiteStore)
        var configuration = FanoutWorker.Configuration()
        configuration.maximumInFlight = 2
        configuration.completionBatchSize = 5
        // No claim of its own while the writer is held: the queue holds the whole message.
        configuration.priorityPollInterval = .seconds(3600)
        let worker = FanoutWorker(
            store: store, provider: fixture.provider, clock: fixture.clock, configuration: configuration)
        let running = Task { try await worker.drain() }
        let deadline = ContinuousClock.now + .seconds(10)
        while fixture.provider.pushes.count < 20 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(1))
        }
        // The writer is taken on a thread of its own and held until released.
        let (held, release) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        Thread {
            try? store.database.write { _ in
                held.signal()
                release.wait()
            }
        }.start()
        held.wait()
        let atHold = fixture.provider.pushes.count
        try await Task.sleep(for: .milliseconds(300))
        let whileHeld = fixture.provider.pushes.count - atHold
        release.signal()
        #expect(try await running.value == 200)
        #expect(whileHeld <= 2 + 2 * 5, "\(whileHeld) pushes went out while the store took no outcome")
        #expect(fixture.provider.pushes.count == 200)
        #expect(Set(fixture.provider.pushes.map(\.token)).count == 200, "each installation once")
        #expect(try store.messageCounts(messageID: messageID).sent == 200)
    }

    @Test func goneTokenIsDeactivated() async throws {
        let fixture = try MessageFixture()
        let messageID = try await queue(fixture, count: 2)
        fixture.provider.script(
            token: APIHarness.token(1),
            [
                PushOutcome(
                    disposition: .tokenInvalid(since: fixture.clock.now.addingTimeInterval(1)), status: 410,
                    reason: "Unregistered")
            ])
        try await fixture.worker().drain()
        let gone = try #require(try fixture.store.installation(appID: "app_main", installationID: "inst-1"))
        #expect(gone.apnsToken == nil)
        let kept = try #require(try fixture.store.installation(appID: "app_main", installationID: "inst-2"))
        #expect(kept.apnsToken == APIHarness.token(2))
        let status = try await fixture.status(messageID)
        #expect(status.json["counts"]?["failed_by_reason"] == ["Unregistered": 1])
        #expect(status.count("sent") == 1)
        #expect(status.json["state"] == "done")
    }

    @Test func tokenRegisteredAgainAfterSinceIsKept() async throws {
        let fixture = try MessageFixture()
        _ = try await queue(fixture, count: 1)
        // APNs says the token went away before the installation was last updated: it came back since.
        fixture.provider.script(
            token: APIHarness.token(1),
            [PushOutcome(disposition: .tokenInvalid(since: fixture.clock.now.addingTimeInterval(-60)), status: 410)])
        try await fixture.worker().drain()
        let installation = try #require(try fixture.store.installation(appID: "app_main", installationID: "inst-1"))
        #expect(installation.apnsToken == APIHarness.token(1))
    }

    @Test func retryOutcomesRequeueUntilTheirTime() async throws {
        let fixture = try MessageFixture()
        let messageID = try await queue(fixture, count: 2)
        fixture.provider.script(
            token: APIHarness.token(1),
            [PushOutcome(disposition: .retry(after: .seconds(30)), status: 429, reason: "TooManyRequests")])
        let worker = fixture.worker()
        try await worker.drain()
        var status = try await fixture.status(messageID)
        #expect(status.count("sent") == 1)
        #expect(status.count("queued") == 1)
        #expect(status.json["state"] == "sending")
        // Not due yet: nothing is claimed.
        #expect(try await worker.drain() == 0)
        fixture.clock.advance(by: .seconds(31))
        #expect(try await worker.drain() == 1)
        status = try await fixture.status(messageID)
        #expect(status.count("sent") == 2)
        #expect(status.json["state"] == "done")
        #expect(fixture.provider.pushCountsByToken[APIHarness.token(1)] == 2)
    }

    @Test func retriesStopAfterTheLastAttempt() async throws {
        let fixture = try MessageFixture()
        let messageID = try await queue(fixture, count: 1)
        let retry = PushOutcome(disposition: .retry(after: nil), status: 503, reason: "ServiceUnavailable")
        fixture.provider.script(token: APIHarness.token(1), Array(repeating: retry, count: 10))
        try await fixture.worker().drain()
        let status = try await fixture.status(messageID)
        #expect(status.json["counts"]?["failed_by_reason"] == ["ServiceUnavailable": 1])
        #expect(fixture.provider.pushes.count == FanoutWorker.Configuration().maximumAttempts)
    }

    @Test func mismatchAndPermanentFailuresAreRecorded() async throws {
        let fixture = try MessageFixture()
        let messageID = try await queue(fixture, count: 2)
        fixture.provider.script(
            token: APIHarness.token(1),
            [PushOutcome(disposition: .tokenMismatch, status: 400, reason: "BadDeviceToken")])
        fixture.provider.script(token: APIHarness.token(2), [PushOutcome(disposition: .failed, status: 400)])
        try await fixture.worker().drain()
        let status = try await fixture.status(messageID)
        #expect(status.json["counts"]?["failed_by_reason"] == ["BadDeviceToken": 1, "failed": 1])
        // A mismatch is not a dead token: it stays.
        let installation = try #require(try fixture.store.installation(appID: "app_main", installationID: "inst-1"))
        #expect(installation.apnsToken != nil)
        let mark = try #require(try fixture.store.tokenMismatch(appID: "app_main", installationID: "inst-1"))
        #expect(mark.token == APIHarness.token(1))
        #expect(try fixture.store.tokenMismatch(appID: "app_main", installationID: "inst-2") == nil)
    }

    @Test func killedMidFanoutResumesWithExactlyOnePushEach() async throws {
        let first = RecordingPushProvider()
        let fixture = try MessageFixture(provider: first)
        let messageID = try await queue(fixture, count: 40)
        first.stall(after: 13)
        let worker = fixture.worker(chunkSize: 10, inFlight: 4)
        let task = Task { try await worker.drain() }
        while first.pushes.count < 13 { try await Task.sleep(for: .milliseconds(1)) }
        task.cancel()
        _ = try? await task.value
        #expect(first.pushes.count == 13)
        let midway = try await fixture.status(messageID)
        #expect(midway.count("sent") == 13)
        #expect(midway.json["state"] == "sending")

        // A new process: another worker, another provider connection, the same store.
        let second = RecordingPushProvider()
        try await fixture.worker(provider: second, chunkSize: 10, inFlight: 4).drain()
        var total = first.pushCountsByToken
        total.merge(second.pushCountsByToken, uniquingKeysWith: +)
        #expect(total.count == 40)
        #expect(total.values.allSatisfy { $0 == 1 })
        let status = try await fixture.status(messageID)
        #expect(status.count("sent") == 40)
        #expect(status.json["state"] == "done")
    }

    /// A graceful stop (tidingsd's SIGTERM): the pushes in flight are answered and recorded, the rest of the
    /// claimed chunk goes back at once with no attempt used, and nothing more is claimed.
    @Test func stoppingFinishesThePushesInFlightAndHandsBackTheRest() async throws {
        let gate = GatedPushProvider()
        let fixture = try MessageFixture()
        let messageID = try await queue(fixture, count: 40)
        let metrics = MetricsRegistry()
        let worker = fixture.worker(provider: gate, chunkSize: 20, inFlight: 4, metrics: metrics)
        let task = Task { await worker.run() }
        while gate.waiting < 4 { try await Task.sleep(for: .milliseconds(1)) }
        worker.requestStop()
        gate.open()
        await task.value

        #expect(gate.answered == 4)
        let stopped = try await fixture.status(messageID)
        #expect(stopped.count("sent") == 4)
        #expect(stopped.count("failed") == 0)
        #expect(stopped.count("queued") == 36)
        #expect(metrics.counter(name: "tidings_pushes_handed_back_total", help: "").value == 16)
        // Handed back, not left claimed: another worker takes all of it now, not after the lease, and every
        // delivery still has all its attempts.
        let now = fixture.harness.now
        let reclaimed = try fixture.store.claimDeliveries(worker: "next", limit: 100, now: now, leaseUntil: now + 1)
        #expect(reclaimed.count == 36)
        #expect(reclaimed.allSatisfy { $0.attempts == 0 })
    }

    /// A hard stop (the task cancelled): pushes cut off in flight come back `interrupted` and are handed back
    /// with no attempt used; the cancelled worker claims nothing more. It used to go on claiming and sending,
    /// each push cut off at once, until every delivery had used its attempts and failed.
    @Test func cancellingHandsBackThePushesCutOffWithoutUsingAnAttempt() async throws {
        let provider = RecordingPushProvider()
        let fixture = try MessageFixture(provider: provider)
        let messageID = try await queue(fixture, count: 30)
        provider.stall(after: 5)
        let worker = fixture.worker(chunkSize: 10, inFlight: 4)
        let task = Task { await worker.run() }
        while provider.pushes.count < 5 { try await Task.sleep(for: .milliseconds(1)) }
        try await Task.sleep(for: .milliseconds(20))
        task.cancel()
        await task.value

        let stopped = try await fixture.status(messageID)
        #expect(stopped.count("sent") == 5)
        #expect(stopped.count("failed") == 0)
        #expect(stopped.count("queued") == 25)
        let now = fixture.harness.now
        let reclaimed = try fixture.store.claimDeliveries(worker: "next", limit: 100, now: now, leaseUntil: now + 1)
        #expect(reclaimed.count == 25)
        #expect(reclaimed.allSatisfy { $0.attempts == 0 })
    }

    @Test func expiredClaimsReturnAndLateOutcomesAreIgnored() async throws {
        let fixture = try MessageFixture()
        let messageID = try await queue(fixture, count: 3)
        let store = fixture.store
        let now = fixture.harness.now
        let claimedByA = try store.claimDeliveries(worker: "a", limit: 10, now: now, leaseUntil: now + 60_000)
        #expect(claimedByA.count == 3)
        // Held: nobody else gets them.
        #expect(try store.claimDeliveries(worker: "b", limit: 10, now: now + 1, leaseUntil: now + 60_000).isEmpty)
        // Worker a dies; after its lease, b takes over and sends.
        let later = now + 61_000
        let claimedByB = try store.claimDeliveries(worker: "b", limit: 10, now: later, leaseUntil: later + 60_000)
        #expect(claimedByB.count == 3)
        let first = try #require(claimedByB.first)
        #expect(
            try store.completeDelivery(
                messageID: messageID, installationID: first.installationID, worker: "b", result: .sent, now: later))
        // a wakes up late: its outcome is refused and the sent row stays sent.
        #expect(
            try !store.completeDelivery(
                messageID: messageID, installationID: first.installationID, worker: "a",
                result: .retry(reason: "x", notBefore: 0), now: later))
        let afterLease = later + 120_000
        let reclaimed = try store.claimDeliveries(worker: "c", limit: 10, now: afterLease, leaseUntil: afterLease + 1)
        #expect(reclaimed.count == 2)
        #expect(!reclaimed.contains { $0.installationID == first.installationID })
    }

    /// A claimed push already handed to the provider counts as sent; the other claimed row ends cancelled.
    @Test func cancellingWhileInFlightLetsClaimedRowsFinish() async throws {
        let fixture = try MessageFixture()
        let messageID = try await queue(fixture, count: 2)
        let store = fixture.store
        let now = fixture.harness.now
        let claimed = try store.claimDeliveries(worker: "a", limit: 10, now: now, leaseUntil: now + 60_000)
        #expect(claimed.count == 2)
        _ = try await fixture.harness.call("DELETE", "/v1/messages/\(messageID)", key: fixture.harness.serverKey)
        try store.completeDelivery(
            messageID: messageID, installationID: claimed[0].installationID, worker: "a", result: .sent, now: now)
        try store.completeDelivery(
            messageID: messageID, installationID: claimed[1].installationID, worker: "a",
            result: .retry(reason: "TooManyRequests", notBefore: now), now: now)
        let status = try await fixture.status(messageID)
        #expect(status.json["state"] == "cancelled")
        #expect(status.count("sent") == 1)
        #expect(status.count("queued") == 0)
        #expect(status.count("cancelled") == 1)
    }

    @Test func expiredMessagesAreNotSent() async throws {
        let fixture = try MessageFixture()
        try await fixture.register("inst-1", seed: 1)
        let reply = try await fixture.send(MessageFixture.alert(["all": true], ["ttl": 60]))
        let messageID = try #require(reply.json["message_id"]?.stringValue)
        fixture.clock.advance(by: .seconds(61))
        try await fixture.worker().drain()
        #expect(fixture.provider.pushes.isEmpty)
        let status = try await fixture.status(messageID)
        // Decided when its turn came: skipped, not failed, and never retried.
        #expect(status.skipped("expired") == 1)
        #expect(status.json["counts"]?["failed_by_reason"] == [:])
    }

    @Test func voipGoesToTheVoIPToken() async throws {
        let fixture = try MessageFixture()
        try await fixture.register("caller", seed: 1, ["voip_token": .string(APIHarness.token(9))])
        try await fixture.register("no-voip", seed: 2)
        let reply = try await fixture.send(
            ["target": ["all": true], "kind": "voip", "content": ["data": ["caller": "Alice"]]])
        // Tokens are read when each delivery is sent, so the one without a VoIP token is skipped then.
        #expect(reply.json["skipped"] == [:])
        try await fixture.worker().drain()
        #expect(try await fixture.status(try #require(reply.json["message_id"]?.stringValue)).skipped("no_token") == 1)
        let push = try #require(fixture.provider.pushes.first)
        #expect(push.token == APIHarness.token(9))
        #expect(push.tokenType == .voip)
        #expect(push.pushType == .voip)
        #expect(fixture.provider.pushes.count == 1)
    }

    @Test func backgroundIsSentAtPriorityFive() async throws {
        let fixture = try MessageFixture()
        try await fixture.register("inst-1", seed: 1)
        _ = try await fixture.send(["target": ["all": true], "kind": "background", "content": ["data": ["sync": 1]]])
        try await fixture.worker().drain()
        let push = try #require(fixture.provider.pushes.first)
        #expect(push.pushType == .background)
        #expect(push.priority == 5)
        #expect(try JSONValue.parse(Data(push.payload))["aps"]?["content-available"] == .integer(1))
    }

    @Test func boundsConcurrency() async throws {
        let fixture = try MessageFixture()
        _ = try await queue(fixture, count: 60)
        try await fixture.worker(chunkSize: 25, inFlight: 3).drain()
        #expect(fixture.provider.pushes.count == 60)
        #expect(fixture.provider.maximumInFlight <= 3)
        #expect(fixture.provider.maximumInFlight >= 1)
    }

    @Test func serviceStartsAndStops() async throws {
        let fixture = try MessageFixture()
        let messageID = try await queue(fixture, count: 5)
        let service = FanoutService(store: fixture.store, provider: fixture.provider, clock: fixture.clock)
        service.start()
        #expect(service.isRunning)
        while try await fixture.status(messageID).json["state"] != "done" {
            try await Task.sleep(for: .milliseconds(1))
        }
        await service.stop()
        #expect(!service.isRunning)
        #expect(fixture.provider.pushes.count == 5)
    }

    @Test func migratesToTheLatestVersion() throws {
        let store = try SQLiteStore(path: ":memory:", checkpointInterval: nil)
        #expect(try store.schemaVersion == SQLiteStore.latestSchemaVersion)
    }
}

/// A provider whose pushes wait until ``open()``, then are accepted: pushes in flight while a worker stops.
private final class GatedPushProvider: PushProvider {
    private struct State {
        var waiting = 0
        var answered = 0
        var isOpen = false
        var continuations: [CheckedContinuation<Void, Never>] = []
    }

    private let state = LockedBox(State())

    /// Pushes waiting for the gate.
    var waiting: Int { state.withLock { $0.waiting } }
    /// Pushes answered after the gate opened.
    var answered: Int { state.withLock { $0.answered } }

    func open() {
        let continuations = state.withLock { state in
            state.isOpen = true
            defer { state.continuations = [] }
            return state.continuations
        }
        for continuation in continuations { continuation.resume() }
    }

    func send(_ push: OutgoingPush) async -> PushOutcome {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state in
                state.waiting += 1
                if !state.isOpen { state.continuations.append(continuation) }
                return state.isOpen
            }
            if resumeNow { continuation.resume() }
        }
        state.withLock { $0.answered += 1 }
        return PushOutcome(disposition: .sent, status: 200)
    }
}
