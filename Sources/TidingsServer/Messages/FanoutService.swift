import Foundation
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
/// Stopping cancels the workers; pushes in flight finish or come back as the provider's cancellation
/// outcome, and claims left behind return to pending when their lease expires (a restart resumes).
public final class FanoutService: Sendable {
    public let workers: [FanoutWorker]
    /// Resolves accepted messages' audiences into deliveries for the workers, beside them.
    public let resolver: CampaignResolver
    private let tasks = LockedBox<[Task<Void, Never>]>([])

    /// - Parameters:
    ///   - workerCount: Workers in this process; each sends up to `configuration.maximumInFlight`.
    ///   - instanceID: The tidingsd instance the workers claim for (``ClusterMembership``): the one worker's id
    ///     is the instance id, several are `instanceID/1`, `instanceID/2`... Nil: random worker ids.
    public init(
        store: any Store, provider: any PushProvider, clock: any TidingsClock = SystemClock(),
        logger: Logger = .disabled(), configuration: FanoutWorker.Configuration = FanoutWorker.Configuration(),
        workerCount: Int = 1, metrics: MetricsRegistry? = nil, instanceID: String? = nil
    ) {
        resolver = CampaignResolver(store: store, clock: clock, logger: logger)
        // One throttle for every worker, so a message's rate and its app's ceiling hold over all of them.
        let throttle = SendThrottle()
        let count = max(1, workerCount)
        workers = (0..<count).map { index in
            FanoutWorker(
                store: store, provider: provider, clock: clock, logger: logger, configuration: configuration,
                metrics: metrics, id: instanceID.map { count == 1 ? $0 : "\($0)/\(index + 1)" }, throttle: throttle)
        }
    }

    /// Starts the workers; a second call while running does nothing.
    public func start() {
        tasks.withLock { tasks in
            guard tasks.isEmpty else { return }
            tasks = workers.map { worker in Task { await worker.run() } } + [Task { await resolver.run() }]
        }
    }

    /// Cancels the workers and waits for them to return.
    public func stop() async {
        let running = tasks.withLock { tasks in
            defer { tasks = [] }
            return tasks
        }
        for task in running { task.cancel() }
        for task in running { await task.value }
    }

    /// Whether the workers are running.
    public var isRunning: Bool { tasks.withLock { !$0.isEmpty } }
}
