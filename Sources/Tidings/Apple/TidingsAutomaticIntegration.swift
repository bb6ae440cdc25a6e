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
    @MainActor
    public final class TidingsAutomaticIntegration {
        public let client: TidingsClient
        /// Performs routes; set `openDeepLink`, `showScreen` and `handleButton` to reach the app's screens.
        public let performer: UIKitRoutePerformer
        /// The proxy, or nil when the Info.plist refused it (`TidingsNotificationDelegateProxyEnabled` `NO`).
        public let notificationDelegate: TidingsNotificationCenterDelegate?
        private var readyObserver: (any NSObjectProtocol)?
        private var contextObservers: [any NSObjectProtocol] = []

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
            notificationDelegate = plan.installsProxy ? Self.installProxy(client, performer, plan: plan) : nil
            readyObserver = NotificationCenter.default.addObserver(
                forName: UIApplication.didBecomeActiveNotification, object: nil, queue: .main
            ) { [weak self] _ in MainActor.assumeIsolated { self?.becameActive() } }
            contextObservers = Self.observeDeviceContext(client)
            Task { await self.launch(plan) }
            Self.current = self
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
                await client.requestAuthorization()
            } else if plan.registersForRemoteNotifications {
                UIApplication.shared.registerForRemoteNotifications()
            }
            await client.syncRegistration()
        }

        /// The first time the app is active, its UI can present: routes held since launch are performed.
        private func becameActive() {
            if let readyObserver { NotificationCenter.default.removeObserver(readyObserver) }
            readyObserver = nil
            performer.perform(client.ready())
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
