import Foundation
import TidingsCampaigns
import TidingsMetrics
import TidingsModel
import TidingsPush
import TidingsStore

/// Runs fan-out workers in the background for whoever owns the server (tidingsd's daemon).
///
/// ```swift
/// let fanout = FanoutService(store: store, provider: apns, logger: logger, metrics: registry)
/// fanout.start()
/// // ...
/// await fanout.stop()
/// ```
///
/// Stopping is graceful: the workers claim nothing more, the pushes in flight get their answers (for up to
/// ``stopGracePeriod``, after which they are cut off), and what was claimed but not sent goes back to the queue
/// at once, without using an attempt. A process killed outright leaves its claims to the lease, or to the
/// other instances' heartbeat check (``ClusterMembership``).
public final class FanoutService: Sendable {
    public let workers: [FanoutWorker]
    /// Resolves accepted messages' audiences into deliveries for the workers, beside them.
    public let resolver: CampaignResolver
    private let tasks = LockedBox<[Task<Void, Never>]>([])

    /// - Parameters:
    ///   - workerCount: Workers in this process; each sends up to `configuration.maximumInFlight`.
    ///   - instanceID: The tidingsd instance the workers claim for (``ClusterMembership``): the one worker's id
    ///     is the instance id, several are `instanceID/1`, `instanceID/2`..., and the resolver is
    ///     `instanceID/resolver`. Nil: random ids.
    ///   - rates: where message rates and app ceilings take their slots: a ``SharedRateSchedule`` keeps them over
    ///     every instance on the store (tidingsd); nil keeps them in this process.
    public init(
        store: any Store, provider: any PushProvider, clock: any TidingsClock = SystemClock(),
        logger: Logger = .disabled(), configuration: FanoutWorker.Configuration = FanoutWorker.Configuration(),
        workerCount: Int = 1, metrics: MetricsRegistry? = nil, instanceID: String? = nil,
        rates: (any RateSlotSource)? = nil
    ) {
        // One throttle for every worker, so a message's rate and its app's ceiling hold over all of them.
        let throttle = SendThrottle(source: rates)
        let count = max(1, workerCount)
        workers = (0..<count).map { index in
            FanoutWorker(
                store: store, provider: provider, clock: clock, logger: logger, configuration: configuration,
                metrics: metrics, id: instanceID.map { count == 1 ? $0 : "\($0)/\(index + 1)" }, throttle: throttle,
                takesHandoff: index == 0)
        }
        // Named under the instance, so that the instance's silence or retirement hands its resolution over too.
        resolver = CampaignResolver(
            store: store, clock: clock, logger: logger, id: instanceID.map { "\($0)/resolver" },
            handoff: workers.first?.handoff)
    }

    /// Starts the workers; a second call while running does nothing.
    public func start() {
        tasks.withLock { tasks in
            guard tasks.isEmpty else { return }
            tasks = workers.map { worker in Task { await worker.run() } } + [Task { await resolver.run() }]
        }
    }

    /// How long ``stop()`` waits for the pushes in flight to be answered before it cuts them off: longer than
    /// an answer takes, shorter than a service manager's patience (systemd's default is 90 s).
    public static let stopGracePeriod: Duration = .seconds(20)

    /// Stops the resolver and the workers (``FanoutWorker/requestStop()``) and waits for them to return,
    /// cancelling the workers that still wait for answers after `gracePeriod`.
    public func stop(gracePeriod: Duration = FanoutService.stopGracePeriod) async {
        let running = tasks.withLock { tasks in
            defer { tasks = [] }
            return tasks
        }
        guard !running.isEmpty else { return }
        for worker in workers { worker.requestStop() }
        // The resolver holds no pushes: it stops between chunks and hands its message back.
        running.last?.cancel()
        let deadline = Task {
            try? await Task.sleep(for: gracePeriod)
            if !Task.isCancelled { for task in running { task.cancel() } }
        }
        for task in running { await task.value }
        deadline.cancel()
    }

    /// How many other instances of the cluster are live (``FanoutWorker/otherInstancesLive(_:)``).
    public func otherInstancesLive(_ count: Int) {
        for worker in workers { worker.otherInstancesLive(count) }
    }

    /// Ends the workers' idle waits: new deliveries are due now.
    public func wake() {
        for worker in workers { worker.wake() }
    }

    /// A message due now was accepted: the resolver takes on what the API left of its audience, and the workers
    /// claim the deliveries already written, both now rather than at their next poll.
    public func messageAccepted() {
        resolver.wake()
        wake()
    }

    /// Whether the workers are running.
    public var isRunning: Bool { tasks.withLock { !$0.isEmpty } }
}
