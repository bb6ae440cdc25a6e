import Foundation
import TidingsMetrics
import TidingsModel
import TidingsPush
import TidingsStore

/// Sends each push through the APNs client of the app whose bundle id is the push's topic, signed with
/// that app's provider token (`tidingsd apps set-apns`); one client, so one connection pool, per app,
/// made on first use.
///
/// An app without credentials gets a client without an `authorization` header: the APNs emulator
/// (without keys) accepts that, and Apple answers 403 `MissingProviderToken`, which the outcome reports.
///
/// `/metrics` shows each client's connections by topic and environment (``connectionsMetric`` and the names
/// beside it): a client replaced after its credentials changed carries on the same series.
public final class AppAPNsProvider: PushProvider, Sendable {
    /// Connections open now to an APNs host.
    public static let connectionsMetric = "tidings_apns_connections"
    /// Connections opened since the start (a counter).
    public static let connectionsOpenedMetric = "tidings_apns_connections_opened_total"
    /// Pushes on the connections and not answered yet, those queued behind full streams included.
    public static let pushesInFlightMetric = "tidings_apns_pushes_in_flight"
    /// Streams the open connections may use at once, as their host grants them.
    public static let streamsMetric = "tidings_apns_streams"

    private let store: any Store
    private let credentials: APNsCredentialsStore
    private let configuration: APNsClient.Configuration
    private let metrics: MetricsRegistry
    private let clock: any TidingsClock
    private let logger: Logger
    private let clients = AppClientCache<APNsClient> { $0.shutdown() }
    /// App ids by bundle id, forgotten when the store announces a change to an app's settings.
    private let appIDs = LockedBox<[String: String]>([:])
    private let storeChanges: StoreChangeObservation

    public init(
        store: any Store, credentials: APNsCredentialsStore, configuration: APNsClient.Configuration = .init(),
        metrics: MetricsRegistry = MetricsRegistry(), clock: any TidingsClock = SystemClock(), logger: Logger
    ) {
        self.store = store
        storeChanges = store.changes.observe { [appIDs, clients] change in
            switch change {
            case .app(let appID): appIDs.withLock { known in known = known.filter { $0.value != appID } }
            case .pushCredentials: clients.recheckAll()
            case .everything:
                appIDs.withLock { $0.removeAll() }
                clients.recheckAll()
            case .key, .identityKeys, .messageCancelled, .erasures: break
            }
        }
        self.credentials = credentials
        self.configuration = configuration
        self.metrics = metrics
        self.clock = clock
        self.logger = logger
    }

    public func send(_ push: OutgoingPush) async -> PushOutcome {
        do {
            let client = try client(for: push.topic)
            return await client.send(push)
        } catch {
            logger.warning("no APNs client for topic", metadata: ["topic": push.topic, "error": "\(error)"])
            return PushOutcome(disposition: .failed, reason: "NoProviderForTopic")
        }
    }

    /// Closes every client; pushes in flight end as retries.
    public func shutdown() {
        clients.shutdown()
    }

    private struct UnknownTopic: Error, CustomStringConvertible {
        var topic: String
        var description: String { "no app has the bundle id \(topic)" }
    }

    private func client(for topic: String) throws -> APNsClient {
        let appID = try self.appID(topic: topic)
        return try clients.client(for: topic, version: { [credentials] in try credentials.version(appID: appID) }) {
            () throws -> APNsClient in
            let authorization = try credentials.load(appID: appID)?.providerToken(clock: clock)
            if authorization == nil {
                logger.notice("sending without a provider token: no APNs credentials", metadata: ["app": appID])
            }
            let opened = registerConnectionMetrics(topic: topic)
            return try APNsClient(
                configuration: configuration, authorization: authorization, metrics: metrics, clock: clock,
                logger: logger, connectionOpened: { opened[$0]?.increment() })
        }
    }

    /// Registers the connection gauges of `topic`, which read whichever client is kept for it at each scrape,
    /// and answers its counters of connections opened, by environment. Registering again (a client replaced)
    /// finds the same series.
    private func registerConnectionMetrics(topic: String) -> [OutgoingPush.Environment: Counter] {
        var opened: [OutgoingPush.Environment: Counter] = [:]
        for environment in OutgoingPush.Environment.allCases {
            let labels = ["topic": topic, "environment": environment.rawValue]
            let load: @Sendable () -> APNsConnectionLoad = { [clients] in
                clients.kept(for: topic)?.connectionLoad(environment) ?? APNsConnectionLoad()
            }
            metrics.gauge(
                name: Self.connectionsMetric, help: "APNs connections open, by app topic and environment.",
                labels: labels
            ) { Double(load().connections) }
            metrics.gauge(
                name: Self.pushesInFlightMetric,
                help: "Pushes on APNs connections not answered yet, those queued behind full streams included.",
                labels: labels
            ) { Double(load().pushesInFlight) }
            metrics.gauge(
                name: Self.streamsMetric,
                help: "Streams the open APNs connections may use at once, as APNs grants them.", labels: labels
            ) { Double(load().streams) }
            opened[environment] = metrics.counter(
                name: Self.connectionsOpenedMetric, help: "APNs connections opened.", labels: labels)
        }
        return opened
    }

    /// The id of the app whose bundle id is `topic`, remembered until the store announces a change to the app
    /// (its bundle id may be another now).
    private func appID(topic: String) throws -> String {
        if let known = appIDs.withLock({ $0[topic] }) { return known }
        guard let app = try store.apps().first(where: { $0.bundleID == topic }) else {
            throw UnknownTopic(topic: topic)
        }
        appIDs.withLock { $0[topic] = app.id }
        return app.id
    }
}
