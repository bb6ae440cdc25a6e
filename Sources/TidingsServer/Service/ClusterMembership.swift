import Foundation
import TidingsMetrics
import TidingsModel
import TidingsStore

/// This instance's part in a cluster of tidingsd instances sharing one PostgreSQL store.
///
/// Every ``Configuration/heartbeatInterval`` it:
/// 1. writes its heartbeat (``Store/recordHeartbeat(instanceID:now:)``);
/// 2. returns to the queue the claims of every instance silent for longer than
///    ``Configuration/instanceTimeout`` (``ClusterStore/releaseClaimsOfSilentInstances(silentFor:now:)``),
///    so a killed instance's deliveries go out again within that timeout plus one interval, not after their
///    lease. On PostgreSQL heartbeats and silence are measured on the database's clock, so an instance whose
///    host clock is off is neither taken for dead nor takes the others for dead;
/// 3. renews its scheduler lease (``SchedulerLeadership``);
/// 4. counts the other live instances (``countOtherInstances()``) and tells `otherInstancesLive`: the fan-out
///    hands its resolver's chunks to its own worker only while none are (``FanoutWorker/otherInstancesLive(_:)``).
///
/// Stopping retires the instance: what it still has claimed goes back at once and it gives up the lease.
/// The fan-out workers claim under the instance id (``FanoutService``'s `instanceID`), which is what ties
/// claims to the heartbeat.
///
/// The heartbeat runs on its own task, apart from scheduled work and fan-out, so that a long job never
/// makes a live instance look dead. An instance that cannot reach the store for longer than the timeout is
/// taken for dead: its claims are released with their claim epoch raised and sent by others. Its workers check
/// their claims (and this heartbeat's age) before sending from memory, so they drop what was taken from them,
/// and their outcomes for it are refused (the epoch no longer matches); the pushes it had in flight are the
/// only ones that can go out twice (``FanoutWorker``).
public final class ClusterMembership: Sendable {
    public struct Configuration: Sendable, Equatable {
        /// How often the heartbeat is written.
        public var heartbeatInterval: Duration = .seconds(2)
        /// An instance whose heartbeat is older than this is taken for dead; also the scheduler lease's length.
        public var instanceTimeout: Duration = .seconds(10)

        public init() {}

        /// A timeout with the heartbeat at a fifth of it, so that four heartbeats in a row can be late before
        /// an instance is taken for dead.
        public init(instanceTimeout: Duration) {
            self.instanceTimeout = instanceTimeout
            heartbeatInterval = instanceTimeout / 5
        }
    }

    public let instanceID: String
    public let configuration: Configuration
    public let leadership: SchedulerLeadership
    let store: any Store
    let clock: any TidingsClock
    let logger: Logger
    private let releasedClaims: Counter?
    private let task = LockedBox<Task<Void, Never>?>(nil)
    private let otherInstancesLive: (@Sendable (Int) -> Void)?
    /// Other instances live at the last count; nil before the first. Held for the whole count, so that two
    /// counts (the heartbeat's and the resolver's) cannot tell their numbers in the wrong order.
    private let othersSeen = LockedBox<Int?>(nil)

    public init(
        instanceID: String, store: any Store, configuration: Configuration = Configuration(),
        clock: any TidingsClock = SystemClock(), logger: Logger = .disabled(), metrics: MetricsRegistry? = nil,
        otherInstancesLive: (@Sendable (Int) -> Void)? = nil
    ) {
        self.instanceID = instanceID
        self.store = store
        self.otherInstancesLive = otherInstancesLive
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        leadership = .lease(
            store: store, holder: instanceID, duration: configuration.instanceTimeout,
            renewalInterval: configuration.heartbeatInterval, clock: clock)
        releasedClaims = metrics?.counter(
            name: "tidings_cluster_claims_released_total",
            help: "Deliveries returned to the queue because the instance that claimed them went silent or stopped.")
        metrics?.gauge(
            name: "tidings_cluster_leader", help: "1 while this instance runs the cluster's scheduled work."
        ) { [leadership] in leadership.isLeader ? 1 : 0 }
        metrics?.gauge(
            name: "tidings_cluster_instances_live",
            help: "Instances whose heartbeat was younger than the timeout at this one's last, itself included."
        ) { [othersSeen] in Double((othersSeen.withLock { $0 } ?? 0) + 1) }
    }

    /// How many other instances were live at the last count; nil before the first.
    public var otherInstances: Int? { othersSeen.withLock { $0 } }

    /// One heartbeat: writes it, releases silent instances' claims, renews the lease.
    /// - Returns: how many deliveries were released.
    @discardableResult
    public func beat() throws -> Int {
        let now = clock.now.millisecondsSince1970
        try store.recordHeartbeat(instanceID: instanceID, now: now)
        let released = try store.releaseClaimsOfSilentInstances(
            silentFor: Int64(configuration.instanceTimeout.seconds * 1000), now: now)
        if released > 0 {
            releasedClaims?.increment(by: released)
            logger.notice(
                "returned to the queue the deliveries of an instance that went silent",
                metadata: ["count": String(released)])
        }
        let wasLeader = leadership.isLeader
        let leads = try leadership.renew()
        if leads != wasLeader {
            logger.notice(
                leads ? "this instance now runs scheduled work" : "this instance no longer runs scheduled work")
        }
        // Last: a count that fails must not cost the lease its renewal.
        try countOtherInstances()
        return released
    }

    /// Counts the other live instances, against this instance's last heartbeat on the same clock (PostgreSQL's on
    /// PostgreSQL), and tells `otherInstancesLive` when the number changed. Each heartbeat does; so does the
    /// fan-out before it resolves a message, so an instance started since the last heartbeat shares it.
    /// - Returns: The number; nil before this instance's first heartbeat.
    @discardableResult
    public func countOtherInstances() throws -> Int? {
        try othersSeen.withLock { seen in
            let heartbeats = try store.instanceHeartbeats()
            guard let mine = heartbeats[instanceID] else { return nil }
            let timeout = Int64(configuration.instanceTimeout.seconds * 1000)
            let others = heartbeats.filter { $0.key != instanceID && mine - $0.value < timeout }.count
            if seen != others {
                seen = others
                logger.info("other live instances: \(others)")
                otherInstancesLive?(others)
            }
            return others
        }
    }

    /// Beats now and then every ``Configuration/heartbeatInterval`` until ``stop()``.
    public func start() {
        task.withLock { task in
            guard task == nil else { return }
            task = Task { [self] in
                while !Task.isCancelled {
                    do { try beat() } catch { logger.error("cluster heartbeat failed: \(error)") }
                    do { try await clock.sleep(for: configuration.heartbeatInterval) } catch { return }
                }
            }
        }
    }

    /// Stops beating and retires the instance: its remaining claims return to the queue and its lease goes.
    /// Call after the fan-out workers have stopped.
    public func stop() async {
        let running = task.withLock { task in
            defer { task = nil }
            return task
        }
        running?.cancel()
        await running?.value
        do {
            try leadership.resign()
            let released = try store.retireInstance(
                instanceID: instanceID, now: clock.now.millisecondsSince1970)
            if released > 0 {
                releasedClaims?.increment(by: released)
                logger.notice("returned this instance's claims to the queue", metadata: ["count": String(released)])
            }
        } catch {
            logger.error("retiring this instance failed; its claims return when it is seen silent: \(error)")
        }
    }
}
