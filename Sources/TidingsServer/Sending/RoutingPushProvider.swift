import Foundation
import TidingsMetrics
import TidingsModel
import TidingsPush
import TidingsStore

/// The one provider fan-out talks to: sends each push through APNs or FCM by ``PushRoute``, from the
/// installation's tokens and the credentials its app has, and skips (with a counted reason) what neither
/// can carry.
///
/// ```swift
/// let provider = RoutingPushProvider(
///     store: store, apns: AppAPNsProvider(store: store, credentials: apnsCredentials, logger: logger),
///     apnsCredentials: apnsCredentials,
///     fcm: AppFCMProvider(credentials: FCMCredentialsStore(dataDirectory: data), logger: logger))
/// let fanout = FanoutService(store: store, provider: provider)
/// ```
///
/// Fan-out resolves a target to its APNs token when it has one, else to its FCM token. When the app has
/// no APNs credentials, an APNs push goes to the installation's FCM token instead, and the outcome names
/// that token so a 404 `UNREGISTERED` clears the FCM token, not the APNs one.
///
/// Which credentials an app has is looked up where they are kept (the store in tidingsd) and remembered for
/// ``Configuration/credentialsCacheTTL``, or until the store announces a change to the app's credentials or
/// settings; a lookup that fails (the store is unreachable) is not remembered.
public final class RoutingPushProvider: PushProvider, Sendable {
    /// Unsigned APNs and how long credential lookups are remembered.
    public struct Configuration: Sendable {
        /// Send APNs pushes of apps without APNs credentials anyway, with no `authorization` header: the
        /// APNs emulator accepts them (Apple answers 403 `MissingProviderToken`). For `--apns-endpoint`.
        public var allowsUnsignedAPNs = false
        public var credentialsCacheTTL: Duration = .seconds(60)

        public init() {}
    }

    private struct AppRoutes {
        var appID: String
        var hasAPNs: Bool
        var hasFCM: Bool
        var checkedAt: Date
    }

    private struct UnknownTopic: Error, CustomStringConvertible {
        var topic: String
        var description: String { "no app has the bundle id \(topic)" }
    }

    private let store: any Store
    private let apns: any PushProvider
    private let apnsCredentials: APNsCredentialsStore
    private let fcm: AppFCMProvider
    private let configuration: Configuration
    private let clock: any TidingsClock
    private let metrics: MetricsRegistry?
    private let logger: Logger
    private let knownApps = LockedBox<[String: AppRoutes]>([:])
    private let routeCounters = LockedBox<[String: Counter]>([:])
    /// Forgets an app's routes when the store announces a change to its settings (a new bundle id) or
    /// credentials, here or on another instance.
    private let storeChanges: StoreChangeObservation

    /// - Parameters:
    ///   - apns: sends APNs pushes (an ``AppAPNsProvider``, or the emulator's client in tests).
    ///   - apnsCredentials: where to look whether an app has an APNs key.
    ///   - fcm: sends FCM pushes with each app's service account.
    ///   - metrics: `tidings_push_routes_total{route}` counts each decision.
    public init(
        store: any Store, apns: any PushProvider, apnsCredentials: APNsCredentialsStore, fcm: AppFCMProvider,
        configuration: Configuration = Configuration(), clock: any TidingsClock = SystemClock(),
        metrics: MetricsRegistry? = nil, logger: Logger = .disabled()
    ) {
        self.store = store
        storeChanges = store.changes.observe { [knownApps] change in
            switch change {
            case .app(let appID), .pushCredentials(let appID):
                knownApps.withLock { known in known = known.filter { $0.value.appID != appID } }
            case .everything: knownApps.withLock { $0.removeAll() }
            case .key, .identityKeys, .messageCancelled, .erasures: break
            }
        }
        self.apns = apns
        self.apnsCredentials = apnsCredentials
        self.fcm = fcm
        self.configuration = configuration
        self.clock = clock
        self.metrics = metrics
        self.logger = logger
    }

    public func send(_ push: OutgoingPush) async -> PushOutcome {
        let app: AppRoutes
        do {
            app = try routes(topic: push.topic)
        } catch {
            logger.warning("no app for topic", metadata: ["topic": push.topic, "error": "\(error)"])
            return PushOutcome(disposition: .failed, reason: "NoProviderForTopic")
        }
        let apnsAvailable = app.hasAPNs || configuration.allowsUnsignedAPNs
        var fcmToken: String?
        if push.tokenType == .apns, !apnsAvailable, let installationID = push.installationID {
            do {
                fcmToken = try store.installation(appID: app.appID, installationID: installationID)?.fcmToken
            } catch {
                logger.warning("cannot read the installation's tokens", metadata: ["error": "\(error)"])
                return PushOutcome(disposition: .retry(after: nil), reason: "store_unavailable")
            }
        }
        let route = PushRoute.choose(
            tokenType: push.tokenType, token: push.token, fcmToken: fcmToken, apnsAvailable: apnsAvailable,
            fcmAvailable: app.hasFCM)
        switch route {
        case .apns:
            count("apns")
            return await apns.send(push)
        case .fcm(let token):
            count("fcm")
            var routed = push
            routed.token = token
            routed.tokenType = .fcm
            var outcome = await fcm.send(routed, appID: app.appID)
            if token != push.token || push.tokenType != .fcm {
                outcome.token = token
                outcome.tokenType = .fcm
            }
            return outcome
        case .skip(let reason):
            count("skipped")
            return PushOutcome(disposition: .skipped, reason: reason.rawValue)
        }
    }

    /// Counts a push under its route; the counters are kept, since the registry renders labels on each lookup.
    private func count(_ route: String) {
        guard let metrics else { return }
        if let counter = routeCounters.withLock({ $0[route] }) {
            counter.increment()
            return
        }
        let counter = metrics.counter(
            name: "tidings_push_routes_total", help: "Pushes by the provider that carried them.",
            labels: ["route": route])
        routeCounters.withLock { $0[route] = counter }
        counter.increment()
    }

    private func routes(topic: String) throws -> AppRoutes {
        let now = clock.now
        if let cached = knownApps.withLock({ $0[topic] }),
            now.timeIntervalSince(cached.checkedAt) < configuration.credentialsCacheTTL.seconds
        {
            return cached
        }
        guard let app = try store.apps().first(where: { $0.bundleID == topic }) else {
            throw UnknownTopic(topic: topic)
        }
        let found = AppRoutes(
            appID: app.id,
            hasAPNs: try apnsCredentials.hasCredentials(appID: app.id),
            hasFCM: try fcm.hasCredentials(appID: app.id), checkedAt: now)
        knownApps.withLock { $0[topic] = found }
        return found
    }
}
