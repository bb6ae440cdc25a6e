import Foundation
import TidingsCrypto
import TidingsHTTP
import TidingsMetrics
import TidingsModel
import TidingsPush
import TidingsStore

/// The handlers behind ``TidingsAPI``'s routes, with what they share.
final class APIService: Sendable {
    let store: any Store
    let configuration: TidingsAPI.Configuration
    let clock: any TidingsClock
    let logger: Logger
    let metrics: any APIMetrics
    /// Where messages go; nil answers `POST /v1/messages` with 503 `no_provider`.
    let provider: (any PushProvider)?
    let fanoutCounters: FanoutCounters
    /// Keys by the SHA-256 of their secret, apps by id and identity verifiers by app id, read on every request:
    /// kept for ``TidingsAPI/Configuration/keyCacheSeconds`` at most, and dropped as soon as the store announces
    /// a change to them (``storeChanges``).
    let keyCache = StoreBackedCache<[UInt8], APIKeyRecord>()
    let appCache = StoreBackedCache<String, AppRecord>()
    let identityCache = StoreBackedCache<String, JWTVerifier>()
    /// Whether each app has an erasure key (and which), and whether a user of an app was erased, read on every
    /// registration that names a user: kept like keys, and dropped when the store announces an erasure.
    let erasureKeys = StoreBackedCache<String, ErasureKeyEntry>()
    let tombstones = StoreBackedCache<ErasureTombstoneKey, ErasureTombstoneEntry>()
    /// Empties the caches above as the store's changes arrive, while the service lives.
    private let storeChanges: StoreChangeObservation
    /// One bucket per key id.
    let keyLimiter: RateLimiter
    /// Each key's rate shared with the other instances on the store; nil on one instance.
    let sharedKeyRates: SharedKeyRates?
    /// One bucket per client address, taken from only by failed authentications.
    let authenticationFailures: RateLimiter
    /// Console sign-in, sessions and their rate limits.
    let sessions: ConsoleSessions
    /// The journeys each app's events may trigger, end or wake: what event ingest queues signals for.
    let journeyCatalog: JourneyCatalog
    /// Called when `POST /v1/messages` accepted a message due now: the server wakes its resolver and fan-out
    /// workers, which would otherwise find it at their next poll (``TidingsAPI/whenMessageAccepted(_:)``).
    let messageAccepted = LockedBox<(@Sendable () -> Void)?>(nil)

    init(
        store: any Store, configuration: TidingsAPI.Configuration, clock: any TidingsClock, logger: Logger,
        metrics: any APIMetrics, provider: (any PushProvider)? = nil, registry: MetricsRegistry? = nil
    ) {
        self.provider = provider
        keyLimiter = RateLimiter(
            limit: configuration.keyRateLimits.server, clock: clock)
        authenticationFailures = RateLimiter(limit: configuration.failedAuthenticationLimit, clock: clock)
        sharedKeyRates = configuration.sharedRates.map(SharedKeyRates.init(source:))
        fanoutCounters = FanoutCounters(registry: registry)
        sessions = ConsoleSessions(store: store, settings: configuration.consoleSessions, clock: clock)
        journeyCatalog = JourneyCatalog(store: store, clock: clock)
        self.store = store
        storeChanges = Self.observeChanges(
            of: store, keys: keyCache, apps: appCache, identities: identityCache, erasureKeys: erasureKeys,
            tombstones: tombstones)
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        self.metrics = metrics
    }

    /// Milliseconds since 1970 on the injected clock.
    var now: Int64 { clock.now.millisecondsSince1970 }

    /// The route table: one line per endpoint, documented in docs/openapi.yaml. Routes whose handler only
    /// parses and calls the store are plain: `immediate` ones are answered on the network thread. Installation
    /// upserts, and event batches on a store that groups them (SQLite), `reply` when their group commits, so
    /// no thread waits for it. On a store that does not (PostgreSQL), event batches are `blocking`, answered
    /// on a worker thread, because each waits milliseconds for its statement and commit (BENCHMARKS.md).
    func routes() -> [HTTPRoute] {
        [
            HTTPRoute.replying("PUT", "/v1/installations/{installation_id}") {
                try self.putInstallation($0, reply: $1)
            },
            HTTPRoute.immediate("GET", "/v1/installations/{installation_id}") { try self.getInstallation($0) },
            HTTPRoute.immediate("PATCH", "/v1/installations/{installation_id}/attributes") {
                try self.patchAttributes($0)
            },
            HTTPRoute.immediate("DELETE", "/v1/installations/{installation_id}/tokens/{token_type}") {
                try self.deleteToken($0)
            },
            HTTPRoute.immediate("GET", "/v1/installations") { try self.listInstallations($0) },
            HTTPRoute("GET", "/v1/users/{user_id}/tags") { try await self.getTags($0) },
            HTTPRoute("PUT", "/v1/users/{user_id}/tags") { try await self.replaceTags($0) },
            HTTPRoute("POST", "/v1/users/{user_id}/tags") { try await self.addTags($0) },
            HTTPRoute("DELETE", "/v1/users/{user_id}/tags") { try await self.removeAllTags($0) },
            HTTPRoute("DELETE", "/v1/users/{user_id}/tags/{tag}") { try await self.removeTag($0) },
            store.insertsEventsWithoutWaiting
                ? HTTPRoute.replying("POST", "/v1/events") { try self.postEvents($0, reply: $1) }
                : HTTPRoute.blocking("POST", "/v1/events") { request in
                    try self.answeredBeforeReturning(request) { try self.postEvents(request, reply: $0) }
                },
            HTTPRoute.immediate("GET", "/v1/events") { try self.getEvents($0) },
            HTTPRoute("GET", "/v1/campaigns/{campaign_id}/stats") { try await self.campaignStats($0) },
            HTTPRoute("GET", "/v1/messages/{message_id}/stats") { try await self.messageStats($0) },
            sendRoute(),
            HTTPRoute("GET", "/v1/messages") { try await self.listMessages($0) },
            idempotent(HTTPRoute("POST", "/v1/uninstall-checks") { try await self.postUninstallCheck($0) }, .serverKey),
            HTTPRoute("GET", "/v1/messages/{message_id}") { try await self.getMessage($0) },
            HTTPRoute("DELETE", "/v1/messages/{message_id}") { try await self.cancelMessage($0) },
            HTTPRoute("GET", "/v1/users/{user_id}/export") { try await self.exportUser($0) },
            HTTPRoute("DELETE", "/v1/users/{user_id}") { try await self.deleteUser($0) },
        ] + adminRoutes() + operatorRoutes() + forwarderRoutes() + sendSettingsRoutes() + liveActivityRoutes()
            + sessionRoutes() + twoFactorRoutes() + consoleRoutes() + audienceRoutes() + importRoutes()
            + journeyRoutes() + userProfileRoutes() + segmentRoutes()
    }
}
