import Foundation

/// The app's entry point to Tidings: registration, notification callbacks, events, inbox and badge.
///
/// The app owns one instance, built from a ``Configuration``; the Apple glue converts each delegate
/// callback's values once (`userInfo` to `JSONValue`) and calls the matching method. Every `handle`
/// method says whether the push was ours, so another vendor's SDK can be chained after it.
///
/// ```swift
/// let client = try TidingsClient(configuration: TidingsClient.Configuration(infoPlist: Bundle.main.infoDictionary ?? [:]))
/// let badge = await client.didFinishLaunching()
/// Task { await client.syncRegistration() }
/// // application(_:didRegisterForRemoteNotificationsWithDeviceToken:)
/// try await client.didRegister(deviceToken: token)
/// // userNotificationCenter(_:didReceive:)
/// let handled = client.handleResponse(
///     actionIdentifier: response.actionIdentifier, userInfo: json, appState: .background,
///     requestIdentifier: response.notification.request.identifier)
/// // once the root view is on screen
/// client.ready().forEach(perform)
/// ```
public final class TidingsClient: Sendable {
    public let configuration: Configuration
    /// The files shared with the extension (events, inbox, badge, installation id).
    public let container: TidingsContainer
    /// Sends the installation (token, user, consents) to the server.
    public let registrar: InstallationRegistrar
    /// Reads and writes the logged-in user's tags.
    public let tags: TagClient
    /// This installation's Live Activity tokens (docs/live-activities.md).
    public let liveActivities: LiveActivityRegistry
    /// Drains the event queue to the server.
    public let uploader: EventUploader

    /// The logged-in user, mirrored outside the registrar's actor so events can be stamped synchronously.
    let currentUser: LockedBox<String?>
    private let coldStart: ColdStartBuffer<PendingRoute>
    /// Orders the token updates PushKit reports from its synchronous callbacks.
    let tokenUpdates = TokenUpdateQueue()
    let logger: Logger

    /// Opens the shared container and builds the registrar, uploader and handlers; sends nothing yet.
    ///
    /// - Throws: ``EventStoreError``, ``InboxError``, ``RegistrationError`` or `SQLiteError` when the
    ///   container's files cannot be opened.
    public init(configuration: Configuration, coldStartCapacity: Int = 8) throws {
        self.configuration = configuration
        logger = configuration.logger
        container = try TidingsContainer(
            directory: configuration.containerDirectory, badgePolicy: configuration.badgePolicy,
            clock: configuration.clock, logger: configuration.logger)
        registrar = try InstallationRegistrar(
            configuration: configuration.registration, transport: configuration.transport,
            clock: configuration.clock, identity: container.identity)
        tags = TagClient(registrar: registrar)
        liveActivities = LiveActivityRegistry(
            registrar: registrar, directory: configuration.containerDirectory, clock: configuration.clock,
            logger: configuration.logger)
        uploader = EventUploader(
            configuration: configuration.uploading, queue: container.events,
            installation: .stored(identity: { [registrar] in registrar.identity }, secrets: registrar.secretStore),
            transport: configuration.transport, clock: configuration.clock)
        // The registrar's record is read here, outside its actor, so the first events carry the user.
        let saved = try? RegistrationRecord.load(from: configuration.containerDirectory)
        currentUser = LockedBox(saved?.desired.userID)
        coldStart = ColdStartBuffer(capacity: coldStartCapacity)
    }

    // MARK: - Shared instance

    private static let sharedBox = LockedBox<TidingsClient?>(nil)

    /// An optional process-wide instance for apps that want one; nothing in the SDK reads it.
    public static var shared: TidingsClient? {
        get { sharedBox.withLock { $0 } }
        set { sharedBox.withLock { $0 = newValue } }
    }

    // MARK: - Identity and lifetime

    /// This installation's id, shared with the extension. It is the registrar's: a new one when the server says
    /// the id belongs to another installation secret.
    public var installationID: String { registrar.identity.installationID }
    /// The logged-in user, or nil.
    public var userID: String? { currentUser.withLock { $0 } }
    /// The event queue shared with the extension.
    public var events: EventStore { container.events }
    /// The message inbox shared with the extension.
    public var inbox: Inbox { container.inbox }
    /// The badge counter shared with the extension.
    public var badge: BadgeCounter { container.badge }

    /// Call once at launch: purges expired inbox entries, applies the badge launch rule, starts the
    /// periodic upload and sets a fixed APNs environment. Sends nothing: call ``syncRegistration(force:)``
    /// next, off the launch path.
    ///
    /// - Returns: the badge to show (``BadgeUpdate/leave`` unless the policy says otherwise).
    @discardableResult
    public func didFinishLaunching() async -> BadgeUpdate {
        do {
            _ = try inbox.purgeExpired()
        } catch {
            logger.info("cannot purge the inbox", metadata: ["error": "\(error)"])
        }
        var update = BadgeUpdate.leave
        do {
            update = try badge.launch(inboxUnread: try inbox.unreadCount())
        } catch {
            logger.info("cannot apply the launch badge", metadata: ["error": "\(error)"])
        }
        switch configuration.environment {
        case .sandbox: await registrar.setEnvironment(.sandbox)
        case .production: await registrar.setEnvironment(.production)
        case .automatic:
            if let detected = configuration.detectEnvironment() { await registrar.setEnvironment(detected) }
        }
        await uploader.start()
        return update
    }

    /// Marks the UI ready and returns the routes held since launch, oldest first, each once, with the push
    /// each came from (so a coupon copied after a cold start still records `coupon_copy`).
    ///
    /// ```swift
    /// performer.perform(client.ready())
    /// ```
    public func ready() -> [PendingRoute] {
        coldStart.ready()
    }

    /// Whether ``ready()`` has been called: taps are performed at once, and no longer count as cold starts.
    public var isReady: Bool { coldStart.isReady }

    // MARK: - Registration

    /// Sends the installation if the server does not have it yet (or `force`); failures are in the result.
    @discardableResult
    public func syncRegistration(force: Bool = false) async -> SyncResult {
        await registrar.sync(force: force)
    }

    /// The APNs device token from `didRegisterForRemoteNotificationsWithDeviceToken`; syncs at once.
    /// - Throws: ``RegistrationError/invalidToken(_:)`` for a token of the wrong length.
    @discardableResult
    public func didRegister(deviceToken: Data) async throws(RegistrationError) -> SyncResult {
        let previous = await registrar.desiredState.apnsToken
        try await registrar.setAPNsToken(Array(deviceToken))
        let state = await registrar.desiredState
        recordTokenChange(from: previous, to: state.apnsToken, state: state)
        return await registrar.sync()
    }

    /// The APNs environment the token belongs to, when ``Configuration/environment`` is automatic.
    @discardableResult
    public func setEnvironment(_ environment: APNsEnvironment) async -> SyncResult {
        await registrar.setEnvironment(environment)
        return await registrar.sync()
    }

    /// The notification permission the person chose; syncs at once.
    @discardableResult
    public func setPermission(_ permission: NotificationPermission) async -> SyncResult {
        let previous = await registrar.desiredState.permission
        await registrar.setPermission(permission)
        recordPermissionChange(from: previous, to: await registrar.desiredState)
        return await registrar.sync()
    }

    /// The person's consents; syncs at once.
    @discardableResult
    public func setConsents(_ consents: InstallationState.Consents) async -> SyncResult {
        await registrar.setConsents(consents)
        return await registrar.sync()
    }

    /// Attaches the installation to `userID`; later events carry it. Sends no user token unless the
    /// ``setUserTokenProvider(_:)`` provider gives one; ``login(userID:userToken:)`` proves the user.
    /// - Throws: ``RegistrationError`` for an invalid user id.
    @discardableResult
    public func login(userID: String) async throws(RegistrationError) -> SyncResult {
        try await login(userID: userID, userToken: nil)
    }

    /// Detaches the installation from its user; the token stays registered.
    @discardableResult
    public func logout() async -> SyncResult {
        await registrar.logout()
        currentUser.withLock { $0 = nil }
        return await registrar.sync()
    }

    // MARK: - Events

    /// Sends queued events now.
    @discardableResult
    public func flush(reason: FlushReason = .explicit) async -> UploadSummary {
        await uploader.flush(reason: reason)
    }

    /// The app went to the background: sends what is queued while iOS still lets the app run, then readies
    /// the shared event store for suspension (``EventStore/prepareForSuspension()``).
    ///
    /// The automatic integration calls it inside a background task (`beginBackgroundTask`), and ends the
    /// task once it returns; call it the same way in a manual integration.
    @discardableResult
    public func didEnterBackground() async -> UploadSummary {
        let summary = await uploader.flush(reason: .background)
        container.events.prepareForSuspension()
        return summary
    }

    /// The background task's time is up before ``didEnterBackground()`` returned: stops scheduling store
    /// work at once, so nothing holds the shared store's lock when iOS suspends the app.
    public func backgroundTimeWillExpire() {
        container.events.prepareForSuspension()
    }

    /// The app is coming back to the foreground: the event store schedules its deferred work again.
    public func willEnterForeground() {
        container.events.resumeAfterSuspension()
    }

    /// The handler for the current user.
    var handler: NotificationHandler {
        NotificationHandler(configuration: configuration.handling(installationID: installationID, userID: userID))
    }

    /// Stores events (and a delivery, once per message), logging rather than throwing: analytics never
    /// break the app's notification callbacks. Past the flush threshold an upload starts in the background.
    func record(_ events: [TidingsEvent], delivery: TidingsEvent? = nil) {
        var stored = false
        do {
            if let delivery { stored = try container.events.recordDelivery(delivery) }
            if !events.isEmpty {
                try container.events.enqueue(contentsOf: events)
                stored = true
            }
        } catch {
            logger.warning("cannot record events", metadata: ["error": "\(error)"])
        }
        guard stored else { return }
        // The callbacks are synchronous (presentation options are due at once), so the threshold check and
        // any upload it starts run on their own; the uploader serialises flushes itself.
        let uploader = self.uploader
        Task { await uploader.notifyEnqueued() }
    }

    /// Keeps an inbox entry for `payload` when it asks for one (the extension may have added it already).
    func keepInInbox(_ payload: PushPayload?) {
        guard let payload, Inbox.accepts(payload) else { return }
        do {
            try inbox.add(payload)
        } catch {
            logger.info("cannot add to the inbox", metadata: ["error": error.description])
        }
    }

    /// Hands a route to the cold-start buffer under its request identifier.
    func submit(_ route: PendingRoute, key: String?) -> ColdStartBuffer<RoutedAction>.Submission {
        switch coldStart.submit(route, key: key) {
        case .performNow(let pending): return .performNow(pending.route)
        case .held: return .held
        case .duplicate: return .duplicate
        }
    }
}
