import Foundation
import TidingsHTTP
import TidingsMetrics
import TidingsModel
import TidingsPush
import TidingsStore

/// The Tidings HTTP API over a store: the route table of every `/v1` endpoint.
///
/// ```swift
/// let api = try TidingsAPI(dataDirectory: directory, logger: logger)
/// let response = try await api.router.handler(request)
/// ```
///
/// Callers authenticate with `Authorization: Bearer <key>`. An app key (`tdg_app_…`, public, embedded in
/// apps) may register installations, read or unregister their tokens, post events, and read or change the
/// tags of the user bound to the calling installation, which it names in `X-Tidings-Installation`. A server
/// key (`tdg_srv_…`, secret) may do all of that for any user and read installations, events and statistics.
/// Every request sees only the data of its key's app. Handlers call the synchronous ``Store`` directly:
/// store calls are short and bounded.
public final class TidingsAPI: Sendable {
    /// The header in which an app key names the installation it speaks for.
    public static let installationHeader = "X-Tidings-Installation"

    /// Every route; the server runs `router.handler`.
    public let router: Router
    public let store: any Store
    public let configuration: Configuration
    /// Runs the apps' journeys (docs/journeys.md); the server starts it, tests drive it with ``JourneyEngine/runOnce(signals:)``.
    public let journeys: JourneyEngine
    private let messageAccepted: LockedBox<(@Sendable () -> Void)?>

    /// Opens (creating if needed) the SQLite store in `dataDirectory`.
    ///
    /// - Parameters:
    ///   - metrics: Where ingest and auth counters go; the server passes its registry's adapter.
    public convenience init(
        dataDirectory: URL, logger: Logger, configuration: Configuration = Configuration(),
        metrics: any APIMetrics = NoAPIMetrics(), provider: (any PushProvider)? = nil
    ) throws {
        try self.init(
            store: SQLiteStore(directory: dataDirectory), configuration: configuration, logger: logger,
            metrics: metrics, provider: provider)
    }

    /// The API over `store`, with injected limits, clock and metrics.
    ///
    /// - Parameters:
    ///   - provider: Where `POST /v1/messages` sends (through a ``FanoutService`` the owner runs); nil
    ///     answers 503 `no_provider`.
    ///   - registry: Where message counters go, when given.
    public init(
        store: any Store, configuration: Configuration = Configuration(), clock: any TidingsClock = SystemClock(),
        logger: Logger, metrics: any APIMetrics = NoAPIMetrics(), provider: (any PushProvider)? = nil,
        registry: MetricsRegistry? = nil
    ) {
        self.store = store
        self.configuration = configuration
        let service = APIService(
            store: store, configuration: configuration, clock: clock, logger: logger, metrics: metrics,
            provider: provider, registry: registry)
        router = Router(routes: service.routes().map(service.roleChecked).map(service.audited))
        messageAccepted = service.messageAccepted
        journeys = JourneyEngine(
            store: store, clock: clock, logger: logger, catalog: service.journeyCatalog,
            composer: MessageComposer(store: store, configuration: configuration))
    }

    /// Calls `action` whenever `POST /v1/messages` has accepted a message due now (the server wakes its
    /// resolver and fan-out workers, so the first push does not wait for their next poll).
    public func whenMessageAccepted(_ action: @escaping @Sendable () -> Void) {
        messageAccepted.withLock { $0 = action }
    }
}
