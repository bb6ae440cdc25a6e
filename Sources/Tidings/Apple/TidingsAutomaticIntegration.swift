#if canImport(UIKit) && canImport(UserNotifications)
    import Foundation
    import UIKit
    import UserNotifications

    /// The automatic integration: a client, its notification-centre delegate proxy and its route performer,
    /// set up by one call at launch.
    ///
    /// ```swift
    /// // application(_:didFinishLaunchingWithOptions:)
    /// integration = try TidingsClient.automaticIntegration()
    /// ```
    ///
    /// Nothing is swizzled. The proxy is an ordinary `UNUserNotificationCenter.delegate`: it handles Tidings'
    /// pushes and forwards every other push, and every method it does not implement, to the delegate it
    /// replaced or to ``appNotificationDelegate``. The device token still comes through the app delegate:
    /// ``TidingsAppDelegate`` forwards it (subclass it, or use it with `@UIApplicationDelegateAdaptor`), or
    /// call ``didRegisterForRemoteNotifications(deviceToken:)`` yourself.
    ///
    /// At every foreground it reads the notification permission (and reports a change), and checks that its
    /// delegate is still the centre's; on entering the background it uploads inside a background task and
    /// readies the shared store for suspension.
    @MainActor
    public final class TidingsAutomaticIntegration {
        public let client: TidingsClient
        /// Performs routes; set `openDeepLink`, `showScreen` and `handleButton` to reach the app's screens.
        public let performer: UIKitRoutePerformer
        /// The proxy, or nil when the Info.plist refused it (`TidingsNotificationDelegateProxyEnabled` `NO`).
        public let notificationDelegate: TidingsNotificationCenterDelegate?
        private let plan: AutomaticIntegrationPlan
        private var observers: [any NSObjectProtocol] = []
        private var delegateWatch = NotificationDelegateWatch()
        private var backgroundTask = UIBackgroundTaskIdentifier.invalid

        /// The integration set up last, for ``TidingsSceneDelegate``; held weakly: the app owns it.
        public private(set) static weak var current: TidingsAutomaticIntegration?

        /// The app's own notification-centre delegate: set it here, not on the centre (which would replace
        /// the proxy). Held strongly; it gets every push that is not Tidings'.
        public var appNotificationDelegate: (any UNUserNotificationCenterDelegate)? {
            get { notificationDelegate?.next }
            set { notificationDelegate?.next = newValue }
        }

        init(client: TidingsClient, plan: AutomaticIntegrationPlan) {
            let performer = UIKitRoutePerformer(client: client)
            self.client = client
            self.performer = performer
            self.plan = plan
            notificationDelegate = plan.installsProxy ? Self.installProxy(client, performer, plan: plan) : nil
            observeLifecycle()
            observers += Self.observeDeviceContext(client)
            Task { await self.launch(plan) }
            Self.current = self
        }

        /// Every activation, foreground and background, for as long as the integration lives.
        private func observeLifecycle() {
            let events: [(Notification.Name, @MainActor (TidingsAutomaticIntegration) -> Void)] = [
                (UIApplication.didBecomeActiveNotification, { $0.becameActive() }),
                (UIApplication.willEnterForegroundNotification, { $0.client.willEnterForeground() }),
                (UIApplication.didEnterBackgroundNotification, { $0.enteredBackground() }),
            ]
            for (name, action) in events {
                observers.append(
                    NotificationCenter.default.addObserver(forName: name, object: nil, queue: .main) { [weak self] _ in
                        MainActor.assumeIsolated { if let self { action(self) } }
                    })
            }
        }

        /// A change of time zone or language while the app runs re-registers once (the core decides whether
        /// anything the server knows changed).
        private static func observeDeviceContext(_ client: TidingsClient) -> [any NSObjectProtocol] {
            [.NSSystemTimeZoneDidChange, NSLocale.currentLocaleDidChangeNotification].map { name in
                NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { _ in
                    Task { await client.deviceContextMayHaveChanged() }
                }
            }
        }

        /// Forward `application(_:didRegisterForRemoteNotificationsWithDeviceToken:)`.
        public func didRegisterForRemoteNotifications(deviceToken: Data) {
            let client = client
            Task { await client.didRegisterForRemoteNotifications(deviceToken: deviceToken) }
        }

        private static func installProxy(
            _ client: TidingsClient, _ performer: UIKitRoutePerformer, plan: AutomaticIntegrationPlan
        ) -> TidingsNotificationCenterDelegate {
            let center = UNUserNotificationCenter.current()
            let proxy = TidingsNotificationCenterDelegate(client: client, performer: performer)
            if plan.chainsExistingDelegate { proxy.next = center.delegate }
            center.delegate = proxy
            return proxy
        }

        private func launch(_ plan: AutomaticIntegrationPlan) async {
            await client.applyBadge(await client.didFinishLaunching())
            if plan.requestsAuthorization {
                await client.requestAuthorization(
                    options: TidingsClient.authorizationOptions(plan.authorizationOptions))
            } else {
                await client.refreshPermission(using: UserNotificationsPermissionPrompt())
                if plan.registersForRemoteNotifications { UIApplication.shared.registerForRemoteNotifications() }
            }
            await client.syncRegistration()
        }

        /// Every activation: routes held since launch are performed (the first time the UI can present), the
        /// permission is read again and reported when it changed, and the delegate proxy is checked.
        private func becameActive() {
            performer.perform(client.ready())
            if let notificationDelegate,
                let warning = delegateWatch.check(
                    tidingsIsDelegate: UNUserNotificationCenter.current().delegate === notificationDelegate)
            {
                client.logger.warning(warning)
            }
            let client = client
            Task { await client.refreshPermission(using: UserNotificationsPermissionPrompt()) }
        }

        /// Uploads what is queued inside a background task, then readies the shared store for suspension;
        /// at expiry the store is readied at once and the task ended.
        private func enteredBackground() {
            guard backgroundTask == .invalid else { return }
            let client = client
            let flush = Task { await client.didEnterBackground() }
            backgroundTask = UIApplication.shared.beginBackgroundTask(withName: "Tidings upload") { [weak self] in
                MainActor.assumeIsolated {
                    flush.cancel()
                    client.backgroundTimeWillExpire()
                    self?.endBackgroundTask()
                }
            }
            Task { [weak self] in
                _ = await flush.value
                self?.endBackgroundTask()
            }
        }

        private func endBackgroundTask() {
            guard backgroundTask != .invalid else { return }
            UIApplication.shared.endBackgroundTask(backgroundTask)
            backgroundTask = .invalid
        }
    }

    extension TidingsClient {
        /// Sets Tidings up in one call at launch: the client, the notification-centre delegate proxy (unless
        /// the Info.plist refuses it), the launch badge, and APNs registration.
        ///
        /// Call it from `application(_:didFinishLaunchingWithOptions:)`, before it returns: a tap that
        /// launched the app is delivered right after. Keep the result.
        ///
        /// - Parameter configuration: nil reads the main bundle's Info.plist.
        /// - Throws: ``ConfigurationError`` for a missing or malformed key, or the container's errors.
        @MainActor
        public static func automaticIntegration(
            configuration: Configuration? = nil
        ) throws -> TidingsAutomaticIntegration {
            let configuration = try configuration ?? Configuration(infoPlist: Bundle.main.infoDictionary ?? [:])
            let client = try TidingsClient(configuration: configuration)
            let existing = UNUserNotificationCenter.current().delegate
            let kind: AutomaticIntegrationPlan.ExistingDelegate =
                existing == nil ? .unset : existing is TidingsNotificationCenterDelegate ? .tidings : .other
            let plan = AutomaticIntegrationPlan(options: configuration.automaticIntegration, existing: kind)
            return TidingsAutomaticIntegration(client: client, plan: plan)
        }
    }
#endif
