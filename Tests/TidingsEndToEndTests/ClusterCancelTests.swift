import Foundation
import Testing
import TidingsModel
import TidingsPostgres
import TidingsServer
import TidingsStore
import TidingsStoreTesting

/// A cancel stops every push not yet handed to the provider within a second, on every instance, and its counts
/// add up (issue #36). Instances (``ClusterFenceTests/Instance``: store, heartbeat, fan-out worker) send one
/// message through a slow stand-in APNs, so that each holds a backlog of claimed pushes in memory when the
/// message is cancelled through one of them. A cancel used to skip only the rows still pending: the claimed ones
/// went out for seconds after it.
@Suite(.serialized) struct ClusterCancelTests {
    typealias Instance = ClusterFenceTests.Instance

    static let installations = 3_000
    /// Each push takes this long to be accepted; with four in flight an instance sends 40 a second, so the
    /// 60 to 120 pushes it holds claimed would take it 1.5 to 3 s to send.
    static let apnsDelay: Duration = .milliseconds(100)
    static let chunkSize = 120
    /// How soon after the cancel's answer the last push may be accepted: the pushes already in flight then.
    static let promise: Duration = .seconds(1)

    /// Starts the instances on one message, cancels it through the second once every instance is sending,
    /// and checks what went out after and what the counts say.
    func cancelMidSend(_ instances: [Instance], log: ClusterFenceTests.PushLog) async throws {
        let store = instances[0].store
        try ClusterFenceTests.queueMessage(store, count: Self.installations)
        for instance in instances { instance.start() }
        let deadline = ContinuousClock.now + .seconds(30)
        while instances.contains(where: { $0.provider.accepted.withLock { $0 } < 8 }) && ContinuousClock.now < deadline
        {
            try await Task.sleep(for: .milliseconds(5))
        }
        let cancelled = try instances[instances.count > 1 ? 1 : 0].store.cancelMessage(
            appID: "app_f", messageID: "m1", now: Date().millisecondsSince1970)
        let answered = ContinuousClock.now
        #expect(cancelled?.state == .cancelled)
        try await Task.sleep(for: Self.promise * 2)
        let late = log.accepted(after: answered + Self.promise)
        let afterAnswer = log.accepted(after: answered)
        let lastDelay = log.lastAccepted.map { $0 - answered } ?? .zero
        for instance in instances { await instance.stop() }
        print(
            "cancel with \(instances.count) instance(s): \(afterAnswer) pushes accepted after the answer (in flight), "
                + "the last \(Int(lastDelay.seconds * 1000)) ms after it; \(log.total) of \(Self.installations) sent")

        #expect(late == 0, "\(late) pushes were accepted more than \(Self.promise) after the cancel answered")
        let counts = try store.messageCounts(messageID: "m1")
        #expect(counts.queued == 0 && counts.inFlight == 0, "no row left waiting or claimed: \(counts)")
        #expect(counts.targets == Self.installations)
        #expect(counts.targets == counts.finished, "every row is final: \(counts)")
        #expect(counts.sent == log.total, "every push the provider accepted is counted sent, and only those")
        #expect(counts.cancelled == Self.installations - log.total, "the rest is cancelled: \(counts)")
        #expect(counts.cancelled > 0)
        #expect(log.repeats == 0)
        #expect(try store.message(appID: "app_f", messageID: "m1")?.state == .cancelled)
    }

    /// Three instances on one PostgreSQL database: the two that did not take the cancel hear of it through
    /// `NOTIFY`.
    @Test func aCancelStopsEveryInstanceWithinASecond() async throws {
        let configuration = try StoreBackend.postgresConfiguration()
        let log = ClusterFenceTests.PushLog()
        let instances = try (1...3).map { index in
            try Instance(
                id: "tidingsd-\(index)", configuration: configuration, log: log, clock: SystemClock(),
                apnsDelay: Self.apnsDelay, chunkSize: Self.chunkSize)
        }
        try await cancelMidSend(instances, log: log)
    }

    /// One instance on SQLite: the cancel reaches its worker through the store's own change feed.
    @Test func aCancelStopsASQLiteInstanceWithinASecond() async throws {
        let log = ClusterFenceTests.PushLog()
        let instance = Instance(
            id: "tidingsd-1", store: try StoreBackend.sqlite.makeStore(), log: log, clock: SystemClock(),
            apnsDelay: Self.apnsDelay, chunkSize: Self.chunkSize)
        try await cancelMidSend([instance], log: log)
    }
}
