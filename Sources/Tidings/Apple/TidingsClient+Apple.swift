#if canImport(UIKit) && canImport(UserNotifications)
    import Foundation
    import TidingsModel
    import UIKit
    import UserNotifications

    /// The `UIApplicationDelegate` and `UISceneDelegate` forwards: each converts Apple's values once and
    /// calls the matching ``TidingsClient`` method.
    extension TidingsClient {
        // MARK: - Registration

        /// Forward `application(_:didRegisterForRemoteNotificationsWithDeviceToken:)`.
        ///
        /// ```swift
        /// func application(_ application: UIApplication, didRegisterForRemoteNotificationsWithDeviceToken deviceToken: Data) {
        ///     Task { await client.didRegisterForRemoteNotifications(deviceToken: deviceToken) }
        /// }
        /// ```
        @discardableResult
        public func didRegisterForRemoteNotifications(deviceToken: Data) async -> SyncResult? {
            do {
                return try await didRegister(deviceToken: deviceToken)
            } catch {
                logger.warning("refused the APNs token", metadata: ["error": "\(error)"])
                return nil
            }
        }

        /// Asks for permission (when not asked yet), reports the answer, and registers with APNs; the token
        /// reaches the server only when the permission (or `TidingsAlwaysAllowTokenRegistration`) allows.
        ///
        /// Call it where the app's own explanation of notifications ends; iOS shows the prompt once.
        ///
        /// - Parameter options: what to ask for; `.provisional` asks nothing and delivers quietly.
        /// - Returns: the permission the person chose.
        /// - Parameter options: nil asks for what the configuration says
        ///   (``AutomaticIntegrationOptions/authorizationOptions``: alert, sound, badge, and provisional or
        ///   app notification settings when configured).
        @discardableResult
        public func requestAuthorization(options: UNAuthorizationOptions? = nil) async -> NotificationPermission {
            let options = options ?? Self.authorizationOptions(configuration.automaticIntegration.authorizationOptions)
            return await requestPermission(using: UserNotificationsPermissionPrompt(options: options))
        }

        /// ``AuthorizationOptions`` as `UNAuthorizationOptions`.
        public static func authorizationOptions(_ options: AuthorizationOptions) -> UNAuthorizationOptions {
            var result: UNAuthorizationOptions = []
            if options.contains(.alert) { result.insert(.alert) }
            if options.contains(.sound) { result.insert(.sound) }
            if options.contains(.badge) { result.insert(.badge) }
            if options.contains(.provisional) { result.insert(.provisional) }
            if options.contains(.providesAppNotificationSettings) { result.insert(.providesAppNotificationSettings) }
            return result
        }

        /// Opens this app's page in Settings at its notification settings (iOS 16+), for a "Turn on
        /// notifications" button after the person declined.
        @MainActor
        public static func openNotificationSettings() {
            let text: String
            if #available(iOS 16.0, *) {
                text = UIApplication.openNotificationSettingsURLString
            } else {
                text = UIApplication.openSettingsURLString
            }
            if let url = URL(string: text) { UIApplication.shared.open(url) }
        }

        /// `UNAuthorizationStatus` as a ``NotificationPermission``; a status added after this SDK counts as
        /// not determined.
        public static func permission(_ status: UNAuthorizationStatus) -> NotificationPermission {
            switch status {
            case .authorized: return .authorized
            case .provisional: return .provisional
            case .ephemeral: return .ephemeral
            case .denied: return .denied
            case .notDetermined: return .notDetermined
            @unknown default: return .notDetermined
            }
        }

        // MARK: - Background pushes

        /// Forward `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)`.
        ///
        /// - Parameters:
        ///   - userInfo: the push.
        ///   - completion: called with `.noData` when the push is ours and asks for no app work; otherwise
        ///     left to the app (`appWork` decides, then calls it).
        ///   - appWork: the app's own refresh for a push that wants it, or for a push that is not ours.
        /// - Returns: whether the push was ours.
        @discardableResult
        public func didReceiveRemoteNotification(
            userInfo: [AnyHashable: Any], completion: @escaping (UIBackgroundFetchResult) -> Void,
            appWork: ((@escaping (UIBackgroundFetchResult) -> Void) -> Void)? = nil
        ) -> Bool {
            let json = try? JSONValue(foundationObject: userInfo)
            let handled = handleBackgroundFetch(userInfo: json, hasAppWork: appWork != nil)
            let finish = FetchCompletionBox(completion)
            BackgroundFetchDispatch.dispatch(
                handled.completion, noData: UIBackgroundFetchResult.noData,
                appWork: appWork.map { work in { done in work(done) } }, finish: { finish.call($0) })
            return handled.isOurs
        }

        // MARK: - URLs

        /// Forward `application(_:open:options:)`; returns whether the URL was ours (return it from there).
        /// Before ``ready()`` the deep link is held, like a tap.
        ///
        /// The app's own schemes (`CFBundleURLTypes`) are never handed to `UIApplication.open`, which would
        /// deliver them here again: they go to `UIKitRoutePerformer.openDeepLink`, the app's router.
        @MainActor
        @discardableResult
        public func open(_ url: URL, performer: any RoutePerformer) -> Bool {
            let handled = handleLaunch(SceneLaunch(urls: [url.absoluteString]))
            performer.perform(handled.routesToPerform)
            return handled.otherURLs.isEmpty
        }

        /// Forward `scene(_:openURLContexts:)`; returns whether any URL was ours.
        @MainActor
        @discardableResult
        public func open(_ contexts: Set<UIOpenURLContext>, performer: any RoutePerformer) -> Bool {
            var anyOurs = false
            for context in contexts where open(context.url, performer: performer) { anyOurs = true }
            return anyOurs
        }

        /// Forward `scene(_:willConnectTo:options:)`: the tap, URL or universal link that launched the scene.
        ///
        /// - Returns: the URLs that were not ours, for the app to open its own way.
        @MainActor
        @discardableResult
        public func connect(_ options: UIScene.ConnectionOptions, performer: any RoutePerformer) -> [URL] {
            let universalLinks = options.userActivities.filter { $0.activityType == NSUserActivityTypeBrowsingWeb }
            let urls = options.urlContexts.map(\.url) + universalLinks.compactMap(\.webpageURL)
            let response = options.notificationResponse.flatMap { NotificationResponseValues($0) }
            let handled = handleLaunch(SceneLaunch(urls: urls.map(\.absoluteString), response: response))
            performer.perform(handled.routesToPerform)
            return handled.otherURLs.compactMap(URL.init(string:))
        }

        /// Forward `scene(_:continue:)` (and `application(_:continue:restorationHandler:)`) for universal
        /// links; returns whether the link was ours.
        @MainActor
        @discardableResult
        public func `continue`(_ userActivity: NSUserActivity, performer: any RoutePerformer) -> Bool {
            guard userActivity.activityType == NSUserActivityTypeBrowsingWeb, let url = userActivity.webpageURL else {
                return false
            }
            return open(url, performer: performer)
        }

        // MARK: - Badge

        /// Shows a ``BadgeUpdate``: `setBadgeCount` on iOS 16 and later, `applicationIconBadgeNumber` before.
        ///
        /// ```swift
        /// await client.applyBadge(await client.didFinishLaunching())
        /// ```
        @MainActor
        public func applyBadge(_ update: BadgeUpdate) async {
            guard case .set(let count) = update else { return }
            if #available(iOS 16.0, *) {
                do {
                    try await UNUserNotificationCenter.current().setBadgeCount(count)
                } catch {
                    logger.info("cannot set the badge", metadata: ["error": "\(error)"])
                }
            } else {
                UIApplication.shared.applicationIconBadgeNumber = count
            }
        }
    }

    /// iOS's background-fetch handler for ``BackgroundFetchDispatch``, which calls it once.
    private final class FetchCompletionBox: @unchecked Sendable {
        // @unchecked: the handler may be called from any thread; the dispatch calls it exactly once.
        private let completion: (UIBackgroundFetchResult) -> Void

        init(_ completion: @escaping (UIBackgroundFetchResult) -> Void) {
            self.completion = completion
        }

        func call(_ result: UIBackgroundFetchResult) { completion(result) }
    }
#endif
