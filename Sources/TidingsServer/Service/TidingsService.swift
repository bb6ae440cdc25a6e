import Foundation
import TidingsCampaigns
import TidingsForwarding
import TidingsHTTP
import TidingsMetrics
import TidingsModel
import TidingsPush
import TidingsStore

/// tidingsd's parts wired together from a ``ServerConfiguration``: the store, the push providers (APNs and
/// FCM, chosen per installation), the API and operations routes, the readiness checks, the fan-out workers
/// and the metrics.
///
/// `tidingsd` serves it; so do `tidings demo` and the end-to-end tests, which therefore run exactly the
/// server that ships.
///
/// ```swift
/// let service = try TidingsService(configuration: configuration, logger: logger)
/// let server = HTTPServer(
///     configuration: configuration.http, handler: service.handler, immediateHandler: service.immediateHandler,
///     logger: logger)
/// service.start()
/// _ = try server.start()
/// ```
///
/// With ``ServerConfiguration/adminHTTP`` set, the caller also serves ``adminHandler`` there; `/metrics`
/// is then on that address only.
public final class TidingsService: Sendable {
    /// The SQLite store in the data directory, or PostgreSQL (`--store postgres://...`).
    public let store: any Store
    public let metrics: MetricsRegistry
    /// The API and operations routes: `/healthz`, `/readyz`, and `/metrics` unless an admin address serves it.
    public let router: Router
    /// ``router`` in the standard pipeline (request ids, access log, metrics, JSON errors, timeout).
    public let handler: HTTPHandler
    /// The same pipeline for the routes answered on the network thread (`HTTPRoute.immediate`).
    public let immediateHandler: ImmediateRequestHandler
    /// The admin address's routes: `/metrics`, `/healthz` and `/readyz`, nothing of the API.
    public let adminRouter: Router
    /// ``adminRouter`` in the standard pipeline, for the server on ``ServerConfiguration/adminHTTP``.
    public let adminHandler: HTTPHandler
    /// The checks behind `/readyz` (store, fan-out, credentials), shared by both addresses and their cache.
    public let readiness: ReadinessProbe
    private let fanout: FanoutService
    /// Held while this process may be the only sender from the store; nil when another process has it.
    private let senderLock: SenderLock?
    private let apns: AppAPNsProvider
    private let fcm: AppFCMProvider
    /// This instance's heartbeat and scheduler lease when the store is PostgreSQL; nil on SQLite.
    public let membership: ClusterMembership?
    /// The periodic jobs, run only while this instance leads (``SchedulerLeadership``).
    public let scheduledWork: ScheduledWork
    /// Sends the apps' events to their destinations (docs/forwarding.md); nil with `--forwarding off`.
    public let forwarding: ForwardingWorker?
    private let forwardingClient: CurlMultiClient?
    /// The journey engine's loop, while the service runs.
    private let journeyTask = LockedBox<Task<Void, Never>?>(nil)
    private let journeys: JourneyEngine
    private let leadership: SchedulerLeadership

    /// Opens (or creates) the store in the configuration's data directory and builds everything; nothing
    /// runs until ``start()``.
    /// - Throws: when the data directory or the store cannot be opened.
    public init(configuration: ServerConfiguration, logger: Logger) throws {
        let dataDirectory = URL(fileURLWithPath: configuration.dataDirectory)
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        let metrics = MetricsRegistry()
        let store = try configuration.openStore(logger: logger)
        // Names this process in the store: its heartbeat, its fan-out claims and the scheduler lease.
        let instanceID = "tidingsd-" + UUID().lowercasedString
        let senderLock: SenderLock?
        let apiMetrics: RegistryAPIMetrics
        if configuration.postgresStore != nil {
            // Several instances may share the database: none may take another's claims at start. An instance
            // that goes silent has its claims returned by the others (ClusterMembership), and scheduled work
            // runs on whichever instance holds the scheduler lease.
            senderLock = nil
            apiMetrics = RegistryAPIMetrics(registry: metrics)
        } else {
            let storeFile = dataDirectory.appendingPathComponent(SQLiteStore.fileName)
            apiMetrics = RegistryAPIMetrics(
                registry: metrics, storeFiles: ["", "-wal"].map { URL(fileURLWithPath: storeFile.path + $0) })
            senderLock = SenderLock(dataDirectory: dataDirectory)
        }
        self.senderLock = senderLock
        if senderLock != nil {
            // No other sender is alive: what is still claimed was in the hands of a process that stopped.
            let released = try store.releaseAllClaims(now: Date().millisecondsSince1970)
            if released > 0 {
                logger.notice(
                    "resuming deliveries claimed by a process that stopped", metadata: ["count": String(released)])
            }
        }
        // Credentials live in the store, shared by every instance; files an older tidingsd kept in the data
        // directory are imported first.
        try CredentialFileImport.run(dataDirectory: dataDirectory, store: store, logger: logger)
        let credentialBacking = StoreCredentialBacking(store: store)
        let apnsCredentials = APNsCredentialsStore(backing: credentialBacking)
        let fcmCredentials = FCMCredentialsStore(backing: credentialBacking)
        apns = AppAPNsProvider(
            store: store, credentials: apnsCredentials, configuration: configuration.apns, metrics: metrics,
            logger: logger)
        fcm = AppFCMProvider(
            credentials: fcmCredentials, configuration: configuration.fcm, metrics: metrics, logger: logger,
            changes: store.changes)
        var routing = RoutingPushProvider.Configuration()
        // An overridden APNs endpoint is the emulator (or a test server), which takes unsigned pushes.
        routing.allowsUnsignedAPNs =
            configuration.apns.productionEndpoint != APNsClient.Configuration.productionEndpoint
        let provider = RoutingPushProvider(
            store: store, apns: apns, apnsCredentials: apnsCredentials, fcm: fcm, configuration: routing,
            metrics: metrics, logger: logger)
        var apiConfiguration = TidingsAPI.Configuration()
        apiConfiguration.insecureMediaHosts = configuration.insecureMediaHosts
        apiConfiguration.credentialsDirectory = dataDirectory
        apiConfiguration.credentialBacking = credentialBacking
        apiConfiguration.defaultTimeToLive = configuration.defaultTimeToLive
        apiConfiguration.trustedProxies = configuration.trustedProxies
        apiConfiguration.consoleSessions = configuration.consoleSessions
        apiConfiguration.auditsAppKeyWrites = configuration.auditsAppKeyWrites
        apiConfiguration.instanceID = instanceID
        // Message rates, app ceilings and key rates are leased from the store, so instances share them.
        let rates = SharedRateSchedule(store: store, logger: logger)
        if configuration.postgresStore != nil { apiConfiguration.sharedRates = rates }
        let api = TidingsAPI(
            store: store, configuration: apiConfiguration, logger: logger, metrics: apiMetrics, provider: provider,
            registry: metrics)
        var fanoutConfiguration = configuration.fanout
        if configuration.postgresStore != nil {
            // Heartbeats decide when this instance's claims may be released: its workers stop sending before.
            fanoutConfiguration.instanceTimeout = configuration.cluster.instanceTimeout
        }
        let fanout = FanoutService(
            store: store, provider: provider, logger: logger, configuration: fanoutConfiguration, metrics: metrics,
            instanceID: instanceID, rates: rates)
        var forwardingClient: CurlMultiClient?
        var forwarding: ForwardingWorker?
        if configuration.forwardingEnabled {
            var clientConfiguration = CurlMultiClient.Configuration()
            clientConfiguration.maxConnectionsPerHost = 4
            let client = try CurlMultiClient(configuration: clientConfiguration)
            var workerConfiguration = configuration.forwarding
            // Holding the sender lock, this process is the store's only user: leases left are a dead process's.
            workerConfiguration.takesOverLeases = senderLock != nil
            forwarding = ForwardingWorker(
                store: store,
                destinations: DestinationFactory(
                    fileRoot: dataDirectory.appendingPathComponent("forwarding", isDirectory: true), httpClient: client),
                configuration: workerConfiguration, logger: logger, metrics: metrics)
            forwardingClient = client
        }
        self.forwarding = forwarding
        self.forwardingClient = forwardingClient
        var forwardingChecks: [ReadinessCheck] = []
        if let forwarding, configuration.forwardingAffectsReadiness {
            forwardingChecks.append(ServiceReadiness.forwardingHealthy { try forwarding.unhealthyDestinations() })
        }
        readiness = ReadinessProbe(
            checks: [
                // A real write: a locked, read-only, full or closed store refuses it.
                ServiceReadiness.storeAcceptsWrites {
                    try store.recordHeartbeat(instanceID: instanceID, now: Date().millisecondsSince1970)
                },
                ServiceReadiness.fanoutRunning { fanout.isRunning },
                ServiceReadiness.credentialsLoad(
                    appIDs: { try store.apps().map(\.id) }, apns: apnsCredentials, fcm: fcmCredentials),
            ] + forwardingChecks, cacheDuration: configuration.readinessCacheDuration, logger: logger)
        var router = api.router
        var adminRouter = Router()
        // On an admin address /metrics leaves the API address, so the API port can face the internet.
        router.addOperationsRoutes(
            metrics: configuration.adminHTTP == nil ? metrics : nil, metricsToken: configuration.metricsToken,
            readiness: readiness)
        // The web console's files, beside the API they call (docs/console.md).
        for route in ConsoleRoutes.routes() { router.add(route) }
        adminRouter.addOperationsRoutes(
            metrics: metrics, metricsToken: configuration.metricsToken, readiness: readiness)
        self.fanout = fanout
        // Scheduled work runs once across every process on the store: on SQLite in the sender, on PostgreSQL
        // in the instance holding the scheduler lease.
        let leadership: SchedulerLeadership
        if configuration.postgresStore != nil {
            let membership = ClusterMembership(
                instanceID: instanceID, store: store, configuration: configuration.cluster, logger: logger,
                metrics: metrics, otherInstancesLive: { [weak fanout] in fanout?.otherInstancesLive($0) })
            // Counted again before each message is resolved, so an instance started since the last heartbeat
            // shares it. Weak both ways: the membership and the fan-out must not keep each other alive.
            fanout.workers.first?.handoff?.beforeEachMessage { [weak membership] in
                _ = try? membership?.countOtherInstances()
            }
            self.membership = membership
            leadership = membership.leadership
        } else {
            membership = nil
            leadership = senderLock == nil ? .never : .always
        }
        var jobs: [ScheduledWork.Job] = []
        if let interval = configuration.uninstallCheckInterval {
            jobs.append(.uninstallChecks(UninstallCheckScheduler(store: store, interval: interval, logger: logger)))
        }
        jobs.append(.auditRetention(store: store, days: configuration.auditRetentionDays, logger: logger))
        jobs.append(.winnerDecisions(WinnerSelector(store: store, logger: logger)))
        jobs.append(.journeySchedules(api.journeys))
        jobs.append(.journeyStepWinners(JourneyStepWinnerSelector(store: store, logger: logger)))
        jobs.append(.journeySegments(api.journeys))
        if let days = configuration.eventRetentionDays {
            jobs.append(.eventRetention(store: store, days: days, logger: logger))
        }
        if !jobs.isEmpty && configuration.postgresStore == nil && senderLock == nil {
            logger.warning("no scheduled work from this process: another process sends from the store and runs it")
        }
        scheduledWork = ScheduledWork(leadership: leadership, jobs: jobs, logger: logger)
        self.leadership = leadership
        journeys = api.journeys
        journeys.whenDeliveriesQueued { [fanout] in fanout.wake() }
        api.whenMessageAccepted { [fanout] in fanout.messageAccepted() }
        metrics.gauge(
            name: "tidings_store_changes_connected",
            help:
                "1 while this instance hears every change to what it caches (on PostgreSQL: its LISTEN connection is up)."
        ) { store.changes.isConnected ? 1 : 0 }
        metrics.gauge(
            name: "tidings_installations_without_timezone",
            help: "Installations whose time zone is unknown: ads reach them only with night-time ad consent."
        ) { Double((try? store.installationsWithoutTimeZone().values.reduce(0, +)) ?? 0) }
        self.store = store
        self.metrics = metrics
        self.router = router
        self.adminRouter = adminRouter
        handler = HTTPMiddleware.standard(
            router: router, logger: logger, metrics: metrics, handlerTimeout: configuration.http.handlerTimeout,
            inner: [.storeUnavailable(logger)])
        immediateHandler = HTTPMiddleware.standardImmediate(router: router, logger: logger, metrics: metrics)
        adminHandler = HTTPMiddleware.standard(
            router: adminRouter, logger: logger, metrics: metrics,
            handlerTimeout: configuration.adminHTTP?.handlerTimeout ?? configuration.http.handlerTimeout)
    }

    /// Starts the fan-out workers, the cluster heartbeat (PostgreSQL) and the scheduled work.
    public func start() {
        membership?.start()
        fanout.start()
        scheduledWork.start()
        forwarding?.start()
        // Every instance walks due runs; the one that leads the scheduled work handles the queued signals.
        let (journeys, leadership) = (journeys, leadership)
        journeyTask.withLock { task in
            task = task ?? Task { await journeys.run { leadership.isLeader } }
        }
    }

    /// Stops the fan-out workers (each finishes the push it is sending) and closes the providers.
    public func stop() async {
        await scheduledWork.stop()
        if let task = journeyTask.withLock({ task in
            defer { task = nil }; return task
        }) {
            task.cancel()
            await task.value
        }
        await fanout.stop()
        // After the workers: what they still hold goes back to the queue now, not when others see us silent.
        await membership?.stop()
        await forwarding?.stop()
        forwardingClient?.shutdown()
        apns.shutdown()
        fcm.shutdown()
    }
}
