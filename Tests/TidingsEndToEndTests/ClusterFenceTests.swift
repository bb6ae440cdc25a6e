import Foundation
import Testing
import TidingsModel
import TidingsPostgres
import TidingsPush
import TidingsServer
import TidingsStore
import TidingsStoreTesting

/// An instance that is alive but taken for dead must not send twice (issue #36): two in-process instances,
/// each with its own PostgreSQL store (its own pool, as another host would have), its heartbeat
/// (``ClusterMembership``) and its fan-out worker, send one message to every installation through a stand-in
/// APNs that records every push. Apart from the pushes in flight when an instance's claims were taken from it
/// (``FanoutWorker/Configuration/maximumInFlight``), no installation gets a push twice.
@Suite(.serialized) struct ClusterFenceTests {
    static let instanceTimeout: Duration = .milliseconds(600)
    static let pushesInFlight = 4

    /// Every push the stand-in APNs accepted, by installation, and when; shared by the instances' providers.
    final class PushLog: Sendable {
        private let counts = LockedBox<[String: Int]>([:])
        private let times = LockedBox<[ContinuousClock.Instant]>([])

        func record(_ installationID: String) {
            counts.withLock { $0[installationID, default: 0] += 1 }
            times.withLock { $0.append(.now) }
        }
        var total: Int { counts.withLock { $0.values.reduce(0, +) } }
        /// Pushes accepted after `instant`.
        func accepted(after instant: ContinuousClock.Instant) -> Int { times.withLock { $0.count { $0 > instant } } }
        /// When the last push was accepted.
        var lastAccepted: ContinuousClock.Instant? { times.withLock { $0.max() } }
        var installations: Int { counts.withLock { $0.count } }
        /// Pushes beyond the first, over every installation.
        var repeats: Int { counts.withLock { $0.values.reduce(0) { $0 + max(0, $1 - 1) } } }
    }

    /// One instance's connection to the stand-in APNs: answers after `delay`. While ``hold()`` is in force its
    /// pushes wait at the seam, before reaching APNs, as in a process stopped with SIGSTOP.
    final class StandInAPNs: PushProvider {
        let log: PushLog
        let delay: Duration
        /// Pushes this instance's connection had accepted.
        let accepted = LockedBox(0)
        private let gate = LockedBox<(held: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

        init(log: PushLog, delay: Duration) {
            self.log = log
            self.delay = delay
        }

        func hold() { gate.withLock { $0.held = true } }

        func release() {
            let waiting = gate.withLock { gate in
                gate.held = false
                defer { gate.waiting = [] }
                return gate.waiting
            }
            for continuation in waiting { continuation.resume() }
        }

        func send(_ push: OutgoingPush) async -> PushOutcome {
            await withCheckedContinuation { continuation in
                let held = gate.withLock { gate in
                    if gate.held { gate.waiting.append(continuation) }
                    return gate.held
                }
                if !held { continuation.resume() }
            }
            try? await Task.sleep(for: delay)
            log.record(push.installationID ?? push.token)
            accepted.withLock { $0 += 1 }
            return PushOutcome(disposition: .sent, status: 200)
        }
    }

    /// A host clock `offset` away from the real one.
    struct SkewedClock: TidingsClock {
        let offset: TimeInterval
        var now: Date { Date().addingTimeInterval(offset) }
        func sleep(for duration: Duration) async throws { try await Task.sleep(for: duration) }
    }

    /// An instance: its store, heartbeat and worker, with a heartbeat loop that ``pause()`` silences.
    final class Instance: Sendable {
        let store: any Store
        let provider: StandInAPNs
        let membership: ClusterMembership
        let worker: FanoutWorker
        private let paused = LockedBox(false)
        private let tasks = LockedBox<[Task<Void, Never>]>([])

        /// With its own PostgreSQL store: its own pool, as another host would have.
        convenience init(
            id: String, configuration: PostgresStore.Configuration, log: PushLog, clock: any TidingsClock,
            apnsDelay: Duration, chunkSize: Int = 60
        ) throws {
            self.init(
                id: id, store: try PostgresStore(configuration: configuration), log: log, clock: clock,
                apnsDelay: apnsDelay, chunkSize: chunkSize)
        }

        init(
            id: String, store: any Store, log: PushLog, clock: any TidingsClock, apnsDelay: Duration,
            chunkSize: Int = 60
        ) {
            self.store = store
            provider = StandInAPNs(log: log, delay: apnsDelay)
            membership = ClusterMembership(
                instanceID: id, store: store,
                configuration: ClusterMembership.Configuration(instanceTimeout: ClusterFenceTests.instanceTimeout),
                clock: clock)
            var fanout = FanoutWorker.Configuration()
            fanout.chunkSize = chunkSize
            fanout.maximumInFlight = ClusterFenceTests.pushesInFlight
            fanout.pollInterval = .milliseconds(50)
            fanout.instanceTimeout = ClusterFenceTests.instanceTimeout
            worker = FanoutWorker(store: store, provider: provider, clock: clock, configuration: fanout, id: id)
        }

        func start() {
            let (membership, worker, paused) = (membership, worker, paused)
            let beats = Task {
                while !Task.isCancelled {
                    if !paused.withLock({ $0 }) { _ = try? membership.beat() }
                    try? await Task.sleep(for: membership.configuration.heartbeatInterval)
                }
            }
            tasks.withLock { $0 = [beats, Task { await worker.run() }] }
        }

        /// As SIGSTOP: no more heartbeats, and the pushes it sends wait before reaching APNs.
        func pause() {
            paused.withLock { $0 = true }
            provider.hold()
        }

        /// As SIGCONT.
        func resume() {
            paused.withLock { $0 = false }
            provider.release()
        }

        func stop() async {
            provider.release()
            worker.requestStop()
            let running = tasks.withLock { $0 }
            running.first?.cancel()
            for task in running { await task.value }
        }
    }

    /// An app, `count` installations and one message queued to every one of them.
    static func queueMessage(_ store: any Store, count: Int) throws {
        let now = Date().millisecondsSince1970
        try store.createApp(AppRecord(id: "app_f", name: "fence", bundleID: "com.example.fence", createdAt: now))
        var deliveries: [MessageDelivery] = []
        for index in 0..<count {
            var update = InstallationUpdate()
            update.platform = .set("ios")
            update.apnsToken = .set("token-\(index)")
            _ = try store.upsertInstallation(appID: "app_f", installationID: "i\(index)", update: update, now: now)
            deliveries.append(
                MessageDelivery(messageID: "m1", appID: "app_f", installationID: "i\(index)", token: "token-\(index)"))
        }
        try store.createMessage(
            MessageRecord(
                id: "m1", appID: "app_f", kind: .alert, topic: "com.example.fence",
                payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8), priority: 10, expiresAt: nil, collapseID: nil,
                nightPolicy: .defer, createdAt: now),
            deliveries: deliveries)
    }

    /// Waits until every delivery is recorded sent.
    static func waitUntilSent(_ store: any Store, count: Int, within limit: Duration = .seconds(60)) async throws {
        let deadline = ContinuousClock.now + limit
        while true {
            let sent = try store.messageCounts(messageID: "m1").sent
            if sent >= count { return }
            guard ContinuousClock.now < deadline else {
                Issue.record("only \(sent) of \(count) sent in time")
                return
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// One instance's clock is a minute ahead. Its heartbeats used to carry that clock, so the others' looked a
    /// minute old to it: it released their claims at every beat while they kept sending them.
    @Test func anInstanceWithItsClockAMinuteAheadTakesNoOneForDead() async throws {
        let configuration = try StoreBackend.postgresConfiguration()
        let count = 600
        let log = PushLog()
        let onTime = try Instance(
            id: "tidingsd-on-time", configuration: configuration, log: log, clock: SystemClock(),
            apnsDelay: .milliseconds(15))
        let ahead = try Instance(
            id: "tidingsd-ahead", configuration: configuration, log: log, clock: SkewedClock(offset: 60),
            apnsDelay: .milliseconds(15))
        try Self.queueMessage(onTime.store, count: count)
        onTime.start()
        ahead.start()
        try await Self.waitUntilSent(onTime.store, count: count)
        await ahead.stop()
        await onTime.stop()

        #expect(log.installations == count, "every installation got the message")
        #expect(log.repeats == 0, "no push went twice: \(log.repeats) repeats")
        #expect(log.total == count)
    }

    /// One instance stops (heartbeats and sending, pushes held in flight) for more than three instance timeouts;
    /// the other takes its claims and sends them; then it continues. Only the pushes it had in flight go twice:
    /// the rest of its in-memory queue fails its claim check and is dropped unsent.
    @Test func anInstancePausedPastTheTimeoutSendsOnlyWhatWasInFlightAgain() async throws {
        let configuration = try StoreBackend.postgresConfiguration()
        let count = 300
        let log = PushLog()
        let paused = try Instance(
            id: "tidingsd-paused", configuration: configuration, log: log, clock: SystemClock(),
            apnsDelay: .milliseconds(10))
        let other = try Instance(
            id: "tidingsd-other", configuration: configuration, log: log, clock: SystemClock(),
            apnsDelay: .milliseconds(10))
        try Self.queueMessage(paused.store, count: count)
        paused.start()
        // Let it claim a chunk and start sending it, then stop it mid-chunk.
        let deadline = ContinuousClock.now + .seconds(30)
        while log.total < 10 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        paused.pause()
        other.start()
        try await Task.sleep(for: Self.instanceTimeout * 3)
        #expect(try other.store.instanceHeartbeats()["tidingsd-paused"] == nil, "taken for dead")
        paused.resume()
        try await Self.waitUntilSent(other.store, count: count)
        // Give the resumed instance time to send whatever it still would.
        try await Task.sleep(for: .milliseconds(500))
        await paused.stop()
        await other.stop()

        #expect(log.installations == count, "every installation got the message")
        #expect(
            log.repeats <= Self.pushesInFlight,
            "only the pushes in flight at the pause may go twice: \(log.repeats) repeats")
    }

    /// Scheduler leadership is a lease on the database's clock: an instance whose clock is a minute ahead does not
    /// take it from a live leader, not even from one whose own clock is a minute behind. It used to: the lease's
    /// expiry was the leader's clock plus the duration, compared with the contender's clock.
    @Test func anInstanceWithASkewedClockDoesNotTakeLeadershipFromALiveLeader() throws {
        let configuration = try StoreBackend.postgresConfiguration()
        func leadership(_ holder: String, offset: TimeInterval) throws -> SchedulerLeadership {
            SchedulerLeadership.lease(
                store: try PostgresStore(configuration: configuration), holder: holder, duration: .seconds(10),
                renewalInterval: .seconds(2), clock: SkewedClock(offset: offset))
        }
        let leader = try leadership("tidingsd-behind", offset: -60)
        let ahead = try leadership("tidingsd-ahead", offset: 60)
        #expect(try leader.renew())
        #expect(try !ahead.renew(), "the leader's lease has ten seconds left on the database's clock")
        #expect(leader.isLeader && !ahead.isLeader)
        #expect(try leader.renew(), "the leader renews it")
        #expect(try !ahead.renew())
        try leader.resign()
        #expect(try ahead.renew(), "given up, it is taken at once")
        #expect(ahead.isLeader && !leader.isLeader)
        try ahead.resign()
    }
}
