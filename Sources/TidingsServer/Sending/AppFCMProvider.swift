import Foundation
import TidingsMetrics
import TidingsModel
import TidingsPush
import TidingsStore

/// Sends FCM pushes through the ``FCMClient`` of the app they belong to, authorised by that app's service
/// account (`tidingsd apps set-fcm`); one client, so one connection and one access token, per app, made on
/// first use.
public final class AppFCMProvider: Sendable {
    private let credentials: FCMCredentialsStore
    private let configuration: FCMClient.Configuration
    private let metrics: MetricsRegistry
    private let clock: any TidingsClock
    private let logger: Logger
    private let clients = AppClientCache<FCMClient> { $0.shutdown() }
    /// Has the clients look at their credentials again when the store announces a change.
    private let storeChanges: StoreChangeObservation?

    /// - Parameter changes: the store's change feed, when the credentials are in the store
    ///   (``StoreCredentialBacking``): a change made on any instance is picked up at once, not after the
    ///   recheck interval.
    public init(
        credentials: FCMCredentialsStore, configuration: FCMClient.Configuration = .init(),
        metrics: MetricsRegistry = MetricsRegistry(), clock: any TidingsClock = SystemClock(), logger: Logger,
        changes: StoreChangeFeed? = nil
    ) {
        storeChanges = changes?.observe { [clients] change in
            switch change {
            case .pushCredentials, .everything: clients.recheckAll()
            case .key, .app, .identityKeys, .messageCancelled, .erasures: break
            }
        }
        self.credentials = credentials
        self.configuration = configuration
        self.metrics = metrics
        self.clock = clock
        self.logger = logger
    }

    /// Whether `appID` has a service account stored (it is not parsed here).
    /// - Throws: when the store holding the credentials cannot be read.
    public func hasCredentials(appID: String) throws -> Bool {
        try credentials.hasCredentials(appID: appID)
    }

    /// Sends `push` (an FCM token) with the client of `appID`; `failed` with reason `NoFCMCredentials` or
    /// `InvalidFCMCredentials` when the app has no usable service account.
    public func send(_ push: OutgoingPush, appID: String) async -> PushOutcome {
        let client: FCMClient
        do {
            guard let made = try self.client(appID: appID) else {
                return PushOutcome(disposition: .failed, reason: "NoFCMCredentials")
            }
            client = made
        } catch {
            logger.warning("unusable FCM service account", metadata: ["app": appID, "error": "\(error)"])
            return PushOutcome(disposition: .failed, reason: "InvalidFCMCredentials")
        }
        return await client.send(push)
    }

    /// The client of `appID`, made on first use; nil when the app has no service account.
    public func client(appID: String) throws -> FCMClient? {
        try clients.clientIfAvailable(for: appID, version: { [credentials] in try credentials.version(appID: appID) }) {
            guard let account = try credentials.load(appID: appID) else { return nil }
            return try FCMClient(
                account: account, configuration: configuration, metrics: metrics, clock: clock, logger: logger)
        }
    }

    /// Closes every client; pushes in flight end as retries.
    public func shutdown() {
        clients.shutdown()
    }
}
