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

        /// Asks for permission (when not asked yet), reports the answer, and registers with APNs.
        ///
        /// Call it where the app's own explanation of notifications ends; iOS shows the prompt once.
        ///
        /// - Parameter options: what to ask for; `.provisional` asks nothing and delivers quietly.
        /// - Returns: the permission the person chose.
        @MainActor
        @discardableResult
        public func requestAuthorization(
            options: UNAuthorizationOptions = [.alert, .sound, .badge]
        ) async -> NotificationPermission {
            let center = UNUserNotificationCenter.current()
            if await center.notificationSettings().authorizationStatus == .notDetermined {
                do {
                    _ = try await center.requestAuthorization(options: options)
                } catch {
                    logger.info("authorization request failed", metadata: ["error": "\(error)"])
                }
            }
            let permission = Self.permission(await center.notificationSettings().authorizationStatus)
            await setPermission(permission)
            if permission.allowsAlerts || configuration.alwaysAllowTokenRegistration {
                UIApplication.shared.registerForRemoteNotifications()
            }
            return permission
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
            userInfo: [AnyHashable: Any],
            completion: @escaping @Sendable (UIBackgroundFetchResult) -> Void,
            appWork: (@Sendable (@escaping @Sendable (UIBackgroundFetchResult) -> Void) -> Void)? = nil
        ) -> Bool {
            guard let json = try? JSONValue(foundationObject: userInfo) else {
                if let appWork { appWork(completion) } else { completion(.noData) }
                return false
            }
            let decision = handleBackground(userInfo: json)
            if decision.shouldAppWork || !decision.isOurs, let appWork {
                appWork(completion)
            } else {
                completion(.noData)
            }
            return decision.isOurs
        }

        // MARK: - URLs

        /// Forward `application(_:open:options:)`; returns whether the URL was ours (return it from there).
        @MainActor
        @discardableResult
        public func open(_ url: URL, performer: any RoutePerformer) -> Bool {
            performer.perform(handleOpenURL(url.absoluteString))
        }

        /// Forward `scene(_:openURLContexts:)`; returns whether any URL was ours.
        @MainActor
        @discardableResult
        public func open(_ contexts: Set<UIOpenURLContext>, performer: any RoutePerformer) -> Bool {
            var anyOurs = false
            for context in contexts where open(context.url, performer: performer) { anyOurs = true }
            return anyOurs
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

        // MARK: - Categories

        /// Registers the app's own button categories, keeping those already registered (by the extension,
        /// another SDK) unless one of `categories` has the same identifier.
        public func registerCategories(_ categories: [CategoryDefinition]) async {
            let center = UNUserNotificationCenter.current()
            let replaced = Set(categories.map(\.id))
            var merged = await center.notificationCategories().filter { !replaced.contains($0.identifier) }
            merged.formUnion(categories.map(Self.category))
            center.setNotificationCategories(merged)
        }

        /// A ``CategoryDefinition`` as a `UNNotificationCategory`.
        public static func category(_ definition: CategoryDefinition) -> UNNotificationCategory {
            var options: UNNotificationCategoryOptions = []
            if definition.options.contains(.customDismissAction) { options.insert(.customDismissAction) }
            if definition.options.contains(.allowInCarPlay) { options.insert(.allowInCarPlay) }
            return UNNotificationCategory(
                identifier: definition.id, actions: definition.actions.map(action), intentIdentifiers: [],
                options: options)
        }

        /// An ``ActionDefinition`` as a `UNNotificationAction`, or a `UNTextInputNotificationAction` for a reply.
        public static func action(_ definition: ActionDefinition) -> UNNotificationAction {
            var options: UNNotificationActionOptions = []
            if definition.options.contains(.foreground) { options.insert(.foreground) }
            if definition.options.contains(.destructive) { options.insert(.destructive) }
            if definition.options.contains(.authenticationRequired) { options.insert(.authenticationRequired) }
            guard let input = definition.textInput else {
                return UNNotificationAction(identifier: definition.id, title: definition.title, options: options)
            }
            return UNTextInputNotificationAction(
                identifier: definition.id, title: definition.title, options: options,
                textInputButtonTitle: input.buttonTitle, textInputPlaceholder: input.placeholder)
        }

        /// The categories registered now, as definitions, for ``NotificationServiceRequest/registeredCategories``.
        public static func definitions(_ categories: Set<UNNotificationCategory>) -> [CategoryDefinition] {
            categories.sorted { $0.identifier < $1.identifier }.map { category in
                var options: CategoryDefinition.Options = []
                if category.options.contains(.customDismissAction) { options.insert(.customDismissAction) }
                if category.options.contains(.allowInCarPlay) { options.insert(.allowInCarPlay) }
                let actions = category.actions.map { action in
                    var actionOptions: ActionDefinition.Options = []
                    if action.options.contains(.foreground) { actionOptions.insert(.foreground) }
                    if action.options.contains(.destructive) { actionOptions.insert(.destructive) }
                    if action.options.contains(.authenticationRequired) {
                        actionOptions.insert(.authenticationRequired)
                    }
                    let input = (action as? UNTextInputNotificationAction).map {
                        ActionDefinition.TextInput(placeholder: $0.textInputPlaceholder, buttonTitle: $0.textInputButtonTitle)
                    }
                    return ActionDefinition(
                        id: action.identifier, title: action.title, options: actionOptions, textInput: input)
                }
                return CategoryDefinition(id: category.identifier, actions: actions, options: options)
            }
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
#endif
