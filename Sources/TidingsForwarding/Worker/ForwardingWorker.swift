import Foundation
import TidingsMetrics
import TidingsModel
import TidingsStore

/// Forwards every app's stored events to its destinations, each destination on its own task with its own
/// cursor, so one that is down holds back no other, and a restart resumes where each stopped.
///
/// ```swift
/// let worker = ForwardingWorker(store: store, destinations: factory, logger: logger, metrics: registry)
/// worker.start()
/// ...
/// await worker.stop()
/// ```
///
/// Four times a second it compares the running destinations with the store's active ones, starting and
/// stopping ``DestinationRunner``s. Delivery is at least once: a runner moves its cursor only after the
/// destination took the batch, so a batch interrupted by a crash is sent again (each event keeps its
/// `event_id`).
public final class ForwardingWorker: Sendable {
    /// How the worker paces itself.
    public struct Configuration: Sendable, Equatable {
        /// Events read and sent at once (a destination may take fewer: Treasure Data takes 500).
        public var batchSize = 500
        /// How many batches of one destination go out side by side when its backlog fills more than one
        /// (``ForwardingLanes``): each installation's events stay in one batch, so their order holds.
        /// Destinations that write in order (files) take one at a time whatever this says.
        public var batchesInFlight = 4
        /// The pause when a destination has nothing left to send.
        public var idleInterval: Duration = .milliseconds(200)
        /// How often the set of destinations is compared with the store: how soon an added or resumed
        /// destination starts (one read of the small forwarders table each time).
        public var reconcileInterval: Duration = .milliseconds(250)
        /// How long a destination's lease lasts without renewal; another process takes over after it.
        public var leaseDuration: Duration = .seconds(30)
        /// A destination failing without a success for longer is unhealthy (`/readyz`, the healthy gauge).
        public var unhealthyAfter: Duration = .seconds(300)
        public var backoff = ForwardingBackoff()
        /// How often lag is measured for `/metrics`.
        public var metricsInterval: Duration = .seconds(1)
        /// Takes over leases at start (the process knows it is the store's only user: SQLite's sender lock).
        public var takesOverLeases = false

        public init() {}
    }

    public let configuration: Configuration
    let store: any Store
    let destinations: DestinationFactory
    let clock: any TidingsClock
    let logger: Logger
    let metrics: MetricsRegistry?
    let random: @Sendable () -> Double
    /// This process's name in leases.
    public let owner: String
    private let state = LockedBox<(supervisor: Task<Void, Never>?, runners: [String: Task<Void, Never>])>((nil, [:]))

    public init(
        store: any Store, destinations: DestinationFactory, configuration: Configuration = Configuration(),
        clock: any TidingsClock = SystemClock(), logger: Logger, metrics: MetricsRegistry? = nil,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.store = store
        self.destinations = destinations
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        self.metrics = metrics
        self.random = random
        owner = "forwarder-" + UUID().uuidString.lowercased()
    }

    /// Whether ``start()`` ran and ``stop()`` did not.
    public var isRunning: Bool { state.withLock { $0.supervisor != nil } }

    /// Starts the supervisor; a second call does nothing.
    public func start() {
        state.withLock { state in
            guard state.supervisor == nil else { return }
            state.supervisor = Task { [self] in await supervise() }
        }
    }

    /// Stops every destination's task (a batch being sent is abandoned, its cursor unmoved) and gives the
    /// leases up.
    public func stop() async {
        let (supervisor, runners) = state.withLock { state in
            defer { state = (nil, [:]) }
            return (state.supervisor, Array(state.runners.values))
        }
        supervisor?.cancel()
        await supervisor?.value
        for runner in runners { runner.cancel() }
        for runner in runners { await runner.value }
    }

    /// The active destinations failing for longer than ``Configuration/unhealthyAfter``, described for
    /// `/readyz` (no secrets: the id, the app, how long, the last error).
    public func unhealthyDestinations() throws -> [String] {
        let now = clock.now.millisecondsSince1970
        let threshold = Int64(configuration.unhealthyAfter.seconds * 1000)
        return try store.forwarders(appID: nil).compactMap { forwarder in
            guard forwarder.state == .active, let since = forwarder.failingSince, now - since > threshold else {
                return nil
            }
            return "forwarder \(forwarder.id) of app \(forwarder.appID) failing for \((now - since) / 1000) s: "
                + (forwarder.lastError ?? "unknown error")
        }
    }

    private func supervise() async {
        if configuration.takesOverLeases {
            // No other process uses this store, so a lease still held belongs to one that stopped.
            for forwarder in (try? store.forwarders(appID: nil)) ?? [] {
                _ = try? store.acquireForwarderLease(
                    id: forwarder.id, owner: owner, now: .max, until: clock.now.millisecondsSince1970)
            }
        }
        while !Task.isCancelled {
            reconcile()
            do {
                try await clock.sleep(for: configuration.reconcileInterval)
            } catch {
                break
            }
        }
        let runners = state.withLock { $0.runners.values }
        for runner in runners { runner.cancel() }
    }

    /// Starts a runner for each active destination without one, forgets the runners that ended.
    private func reconcile() {
        let active: [ForwarderRecord]
        do {
            active = try store.forwarders(appID: nil).filter { $0.state == .active }
        } catch {
            logger.warning("cannot list forwarders", metadata: ["error": "\(error)"])
            return
        }
        for forwarder in active {
            let running = state.withLock { $0.runners[forwarder.id] != nil }
            guard !running else { continue }
            let destination: any ForwardingDestination
            do {
                destination = try destinations.destination(for: forwarder, batchSize: configuration.batchSize)
            } catch {
                try? store.recordForwarderFailure(
                    id: forwarder.id, at: clock.now.millisecondsSince1970, message: error.message)
                continue
            }
            let runner = DestinationRunner(worker: self, forwarder: forwarder, destination: destination)
            let id = forwarder.id
            let box = state
            box.withLock { current in
                guard current.supervisor != nil else { return }
                current.runners[id] = Task {
                    await runner.run()
                    box.withLock { _ = $0.runners.removeValue(forKey: id) }
                }
            }
        }
    }
}
