import Foundation
import Testing
import TidingsModel
import TidingsServer
import TidingsStore
import TidingsStoreTesting
import TidingsTesting

/// Instances sharing one store (``ClusterMembership``, ``SchedulerLeadership``, ``ScheduledWork``): a silent
/// instance's claims come back within the timeout, a stopped one's at once, and scheduled work runs on one
/// instance, handed over when it stops or dies. Over both backends: on SQLite this is what several
/// processes on one host would do.
@Suite struct ClusterMembershipTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    func makeStore(_ backend: StoreBackend, deliveries: Int) throws -> any Store {
        let store = try backend.makeStore()
        let now = Self.start.millisecondsSince1970
        try store.createApp(AppRecord(id: "app_a", name: "app_a", bundleID: "com.example.a", createdAt: now))
        try store.createMessage(
            MessageRecord(
                id: "m1", appID: "app_a", kind: .alert, topic: "com.example.a", payload: Array("{}".utf8),
                priority: 10, createdAt: now),
            deliveries: (0..<deliveries).map {
                MessageDelivery(messageID: "m1", appID: "app_a", installationID: "i\($0)", token: "t\($0)")
            })
        return store
    }

    func member(
        _ id: String, _ store: any Store, _ clock: ManualClock, timeout: Duration = .seconds(10)
    ) -> ClusterMembership {
        ClusterMembership(
            instanceID: id, store: store, configuration: ClusterMembership.Configuration(instanceTimeout: timeout),
            clock: clock)
    }

    func claim(_ store: any Store, _ worker: String, _ count: Int, _ clock: ManualClock) throws -> Int {
        let now = clock.now.millisecondsSince1970
        return try store.claimDeliveries(worker: worker, limit: count, now: now, leaseUntil: now + 300_000).count
    }

    /// Silence is measured on the store's clock (PostgreSQL's own on PostgreSQL), so this one runs in real time,
    /// with a one-second timeout.
    @Test(arguments: StoreBackend.allCases)
    func aSilentInstancesClaimsComeBackAfterTheTimeoutAndAStoppedOnesAtOnce(_ backend: StoreBackend) async throws {
        let store = try makeStore(backend, deliveries: 4)
        let clock = SystemClock()
        func member(_ id: String) -> ClusterMembership {
            ClusterMembership(
                instanceID: id, store: store,
                configuration: ClusterMembership.Configuration(instanceTimeout: .seconds(1)), clock: clock)
        }
        func claim(_ worker: String, _ count: Int) throws -> Int {
            let now = clock.now.millisecondsSince1970
            return try store.claimDeliveries(worker: worker, limit: count, now: now, leaseUntil: now + 300_000).count
        }
        let killed = member("killed")
        let survivor = member("survivor")
        try killed.beat()
        try survivor.beat()
        #expect(try claim("killed", 2) == 2)

        try await Task.sleep(for: .milliseconds(500))
        #expect(try survivor.beat() == 0, "half a second of silence is within the timeout")
        try await Task.sleep(for: .milliseconds(700))
        #expect(try survivor.beat() == 2, "1.2 seconds is past it")
        #expect(try store.instanceHeartbeats().keys.sorted() == ["survivor"])
        #expect(try claim("survivor", 10) == 4, "the killed instance's rows are claimable again")

        await survivor.stop()
        #expect(try store.instanceHeartbeats().isEmpty)
        #expect(try store.messageCounts(messageID: "m1").inFlight == 0, "a stopped instance leaves nothing claimed")
    }

    /// Counted against the instance's own heartbeat (the store's clock), in real time with a one-second timeout;
    /// told only when the count changes.
    @Test(arguments: StoreBackend.allCases)
    func theOtherLiveInstancesAreCountedAtEachHeartbeatAndToldWhenTheirNumberChanges(_ backend: StoreBackend)
        async throws
    {
        let store = try makeStore(backend, deliveries: 0)
        let told = LockedBox<[Int]>([])
        func member(_ id: String, telling: Bool = false) -> ClusterMembership {
            let tell: @Sendable (Int) -> Void = { count in told.withLock { $0.append(count) } }
            return ClusterMembership(
                instanceID: id, store: store,
                configuration: ClusterMembership.Configuration(instanceTimeout: .seconds(1)), clock: SystemClock(),
                otherInstancesLive: telling ? tell : nil)
        }
        let watched = member("watched", telling: true)
        let (joining, silent) = (member("joining"), member("silent"))
        #expect(try watched.countOtherInstances() == nil, "nothing to measure against before its first heartbeat")
        #expect(watched.otherInstances == nil)
        try watched.beat()
        #expect(watched.otherInstances == 0)
        try joining.beat()
        #expect(try watched.countOtherInstances() == 1, "seen between heartbeats when counted")
        try silent.beat()
        try watched.beat()
        try watched.beat()
        #expect(watched.otherInstances == 2)
        #expect(told.withLock { $0 } == [0, 1, 2], "told once per change")
        await joining.stop()
        try watched.beat()
        #expect(watched.otherInstances == 1, "a stopped instance is gone at once")
        try await Task.sleep(for: .milliseconds(1200))
        try watched.beat()
        #expect(watched.otherInstances == 0, "a heartbeat 1.2 s old is past the timeout")
        #expect(told.withLock { $0 } == [0, 1, 2, 1, 0])
    }

    @Test(arguments: StoreBackend.allCases)
    func scheduledWorkRunsOnOneInstanceAndIsHandedOverWhenItStopsOrDies(_ backend: StoreBackend) async throws {
        let store = try makeStore(backend, deliveries: 0)
        let clock = ManualClock(now: Self.start)
        // Also the scheduler lease's length.
        let timeout = Duration.seconds(2)
        let first = member("first", store, clock, timeout: timeout)
        let second = member("second", store, clock, timeout: timeout)
        let third = member("third", store, clock, timeout: timeout)
        let runs = LockedBox<[String]>([])
        func work(_ member: ClusterMembership) -> ScheduledWork {
            ScheduledWork(
                leadership: member.leadership,
                jobs: [
                    ScheduledWork.Job(name: "job", interval: .seconds(3600)) {
                        runs.withLock { $0.append(member.instanceID) }
                    }
                ],
                logger: .disabled())
        }
        let (firstWork, secondWork, thirdWork) = (work(first), work(second), work(third))
        for member in [first, second, third] { try member.beat() }
        #expect(first.leadership.isLeader && !second.leadership.isLeader && !third.leadership.isLeader)
        for work in [firstWork, secondWork, thirdWork] { work.runDue() }
        #expect(firstWork.runDue().isEmpty, "a job runs once per interval")
        #expect(runs.withLock { $0 } == ["first"])

        // A clean stop hands over at the next heartbeat.
        await first.stop()
        #expect(!first.leadership.isLeader)
        try second.beat()
        try third.beat()
        #expect(second.leadership.isLeader && !third.leadership.isLeader)
        for work in [firstWork, secondWork, thirdWork] { work.runDue() }
        #expect(runs.withLock { $0 } == ["first", "second"])

        // A leader that dies loses the lease once it has been silent past the timeout, as the store measures
        // time: the instances' clock on SQLite, its own on PostgreSQL, so real time passes too.
        func pass(_ duration: Duration) async throws {
            clock.advance(by: duration)
            try await Task.sleep(for: duration)
        }
        try await pass(timeout / 2)
        try third.beat()
        #expect(!third.leadership.isLeader, "the leader's lease still runs")
        try await pass(timeout * 0.7)
        try third.beat()
        #expect(third.leadership.isLeader)
        thirdWork.runDue()
        #expect(runs.withLock { $0 } == ["first", "second", "third"])
        await third.stop()
    }

    @Test func fixedLeadershipsAndAJobThatFailsIsTriedAgainAtItsNextInterval() throws {
        #expect(SchedulerLeadership.always.isLeader)
        #expect(try SchedulerLeadership.always.renew())
        #expect(!SchedulerLeadership.never.isLeader)
        let attempts = LockedBox(0)
        struct JobFailure: Error {}
        let work = ScheduledWork(
            leadership: .always,
            jobs: [
                ScheduledWork.Job(name: "failing", interval: .milliseconds(50)) {
                    attempts.withLock { $0 += 1 }
                    throw JobFailure()
                }
            ], logger: .disabled())
        #expect(work.runDue() == ["failing"])
        #expect(work.runDue().isEmpty)
        Thread.sleep(forTimeInterval: 0.06)
        #expect(work.runDue() == ["failing"])
        #expect(attempts.withLock { $0 } == 2)
        let idle = ScheduledWork(leadership: .never, jobs: work.jobs, logger: .disabled())
        #expect(idle.runDue().isEmpty)
    }

    @Test(arguments: StoreBackend.allCases)
    func fanOutWorkersClaimUnderTheInstanceID(_ backend: StoreBackend) throws {
        let store = try backend.makeStore()
        let provider = RecordingPushProvider()
        let one = FanoutService(store: store, provider: provider, instanceID: "tidingsd-a")
        #expect(one.workers.map(\.id) == ["tidingsd-a"])
        let two = FanoutService(store: store, provider: provider, workerCount: 2, instanceID: "tidingsd-b")
        #expect(two.workers.map(\.id) == ["tidingsd-b/1", "tidingsd-b/2"])
        #expect(FanoutService(store: store, provider: provider).workers[0].id.hasPrefix("worker-"))
    }

    @Test func theInstanceTimeoutAndTheRetentionAreSettingsWithLimits() throws {
        func resolve(_ arguments: [String]) throws(ServerConfigurationError) -> ServerConfiguration {
            guard
                case .serve(let configuration) = try ServerConfiguration.resolve(
                    arguments: arguments, environment: [:], readFile: { _ in Data() })
            else { throw ServerConfigurationError(code: "help", message: "help") }
            return configuration
        }
        let defaults = try resolve([])
        #expect(defaults.cluster == ClusterMembership.Configuration())
        #expect(defaults.cluster.instanceTimeout == .seconds(10) && defaults.cluster.heartbeatInterval == .seconds(2))
        #expect(defaults.eventRetentionDays == nil)
        let set = try resolve(["--instance-timeout", "3", "--event-retention", "90"])
        #expect(set.cluster.instanceTimeout == .seconds(3))
        #expect(set.cluster.heartbeatInterval == .milliseconds(600))
        #expect(set.eventRetentionDays == 90)
        for arguments in [
            ["--instance-timeout", "0.5"], ["--instance-timeout", "301"], ["--instance-timeout", "soon"],
            ["--event-retention", "0"], ["--event-retention", "36501"], ["--event-retention", "1.5"],
        ] {
            let error = #expect(throws: ServerConfigurationError.self) { try resolve(arguments) }
            #expect(error?.message.contains(arguments[0]) == true, "\(error?.message ?? "")")
        }
    }

    @Test func onSQLiteTheSenderRunsScheduledWorkAndASecondProcessDoesNot() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-cluster-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = ServerConfiguration(dataDirectory: directory.path)
        configuration.eventRetentionDays = 30
        let sender = try TidingsService(configuration: configuration, logger: .disabled())
        #expect(sender.membership == nil)
        #expect(sender.scheduledWork.leadership.isLeader)
        #expect(
            sender.scheduledWork.jobs.map(\.name) == [
                "audit-retention", "winner-decisions", "journey-schedules", "journey-step-winners", "journey-segments",
                "event-retention",
            ])
        let second = try TidingsService(configuration: configuration, logger: .disabled())
        #expect(!second.scheduledWork.leadership.isLeader)
        await second.stop()
        await sender.stop()
    }

    @Test func onPostgreSQLEachServiceHeartBeatsAndOneLeads() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-cluster-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = ServerConfiguration(dataDirectory: directory.path)
        configuration.postgresStore = try StoreBackend.postgresConfiguration().connectionString
        configuration.uninstallCheckInterval = .seconds(3600)
        let services = try (0..<2).map { _ in try TidingsService(configuration: configuration, logger: .disabled()) }
        for service in services { service.start() }
        let ids = services.compactMap { $0.membership?.instanceID }
        #expect(ids.count == 2)
        let deadline = Date().addingTimeInterval(10)
        while try Set(services[0].store.instanceHeartbeats().keys) != Set(ids)
            || services.allSatisfy({ !$0.scheduledWork.leadership.isLeader }), Date() < deadline
        {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(try Set(services[0].store.instanceHeartbeats().keys) == Set(ids))
        #expect(services.filter { $0.scheduledWork.leadership.isLeader }.count == 1)
        #expect(
            services[0].scheduledWork.jobs.map(\.name) == [
                "uninstall-checks", "audit-retention", "winner-decisions", "journey-schedules", "journey-step-winners",
                "journey-segments",
            ])
        for service in services { await service.stop() }
        #expect(try services[0].store.instanceHeartbeats().isEmpty, "a stopped service retires its instance")
        #expect(try services[0].store.lease(name: SchedulerLeadership.leaseName) == nil)
    }
}
