#if canImport(UIKit) && canImport(UserNotifications)
    import Foundation
    import TidingsModel
    import UIKit
    import UserNotifications

    /// The `UNUserNotificationCenter` delegate that forwards to a ``TidingsClient``; every decision is the
    /// client's.
    ///
    /// ```swift
    /// let delegate = TidingsNotificationCenterDelegate(client: client, performer: UIKitRoutePerformer(client: client))
    /// UNUserNotificationCenter.current().delegate = delegate  // keep a strong reference: the center's is weak
    /// ```
    ///
    /// To chain another vendor, set ``next`` (or subclass and call ``presentationIfOurs(for:)`` /
    /// ``handleIfOurs(_:appState:)``): pushes that are not ours go to it unchanged.
    public final class TidingsNotificationCenterDelegate: NSObject, UNUserNotificationCenterDelegate,
        @unchecked Sendable
    {
        // @unchecked: every stored property is a `let` except `next`, which the app sets once at launch.
        public let client: TidingsClient
        public let performer: any RoutePerformer
        /// The delegate that gets pushes that are not ours (another vendor's SDK, the app's own).
        ///
        /// Held strongly, unlike `UNUserNotificationCenter.delegate`: a vendor's delegate object that only
        /// the chain references would otherwise be freed, and its pushes silently dropped.
        public var next: (any UNUserNotificationCenterDelegate)?

        public init(client: TidingsClient, performer: any RoutePerformer) {
            self.client = client
            self.performer = performer
        }

        /// How to present a notification when it is ours; nil when it belongs to someone else.
        public func presentationIfOurs(for notification: UNNotification) -> UNNotificationPresentationOptions? {
            guard let userInfo = try? JSONValue(foundationObject: notification.request.content.userInfo) else {
                return nil
            }
            let decision = client.handleIncoming(userInfo: userInfo, appState: .foreground)
            return decision.isOurs ? Self.options(decision.presentation) : nil
        }

        /// Handles a response when it is ours and hands its route to the performer.
        ///
        /// - Returns: whether the push was ours; when false, pass the response on.
        @discardableResult
        public func handleIfOurs(_ response: UNNotificationResponse, appState: AppState) -> Bool {
            guard let values = NotificationResponseValues(response) else { return false }
            let handled = client.handleResponse(
                actionIdentifier: values.actionIdentifier, userText: values.userText, userInfo: values.userInfo,
                appState: appState, requestIdentifier: values.requestIdentifier)
            guard handled.isOurs else { return false }
            let performer = performer
            Task { @MainActor in performer.perform(handled, userInfo: values.userInfo) }
            return true
        }

        public func userNotificationCenter(
            _ center: UNUserNotificationCenter, willPresent notification: UNNotification,
            withCompletionHandler completionHandler: @escaping @Sendable (UNNotificationPresentationOptions) -> Void
        ) {
            if let options = presentationIfOurs(for: notification) {
                completionHandler(options)
                return
            }
            // Optional chaining yields nil when `next` does not implement the method.
            let forwarded: Void? = next?.userNotificationCenter?(
                center, willPresent: notification, withCompletionHandler: completionHandler)
            // Not ours and nobody else wants it: what iOS does without a delegate, show nothing.
            if forwarded == nil { completionHandler([]) }
        }

        public func userNotificationCenter(
            _ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse,
            withCompletionHandler completionHandler: @escaping @Sendable () -> Void
        ) {
            if handleIfOurs(response, appState: client.appState(for: Self.currentApplicationState())) {
                completionHandler()
                return
            }
            let forwarded: Void? = next?.userNotificationCenter?(
                center, didReceive: response, withCompletionHandler: completionHandler)
            if forwarded == nil { completionHandler() }
        }

        public func userNotificationCenter(
            _ center: UNUserNotificationCenter, openSettingsFor notification: UNNotification?
        ) {
            next?.userNotificationCenter?(center, openSettingsFor: notification)
        }

        /// Answers for ``next`` on the methods only it implements: iOS shows the in-app notification
        /// settings button only when the delegate responds to `openSettingsFor`.
        override public func responds(to selector: Selector!) -> Bool {
            if selector == Self.openSettingsSelector { return next?.responds(to: selector) ?? false }
            return super.responds(to: selector) || (next?.responds(to: selector) ?? false)
        }

        /// Sends every method this class does not implement (one Apple adds later) to ``next``.
        override public func forwardingTarget(for selector: Selector!) -> Any? {
            next?.responds(to: selector) == true ? next : super.forwardingTarget(for: selector)
        }

        private static let openSettingsSelector = #selector(
            UNUserNotificationCenterDelegate.userNotificationCenter(_:openSettingsFor:))

        /// `UIApplication.shared.applicationState`. iOS calls the delegate on the main thread; should it not,
        /// `inactive` (a tap bringing the app forward) is the safe guess, not a crash.
        static func currentApplicationState() -> ApplicationState {
            guard Thread.isMainThread else { return .inactive }
            let state = MainActor.assumeIsolated { UIApplication.shared.applicationState }
            switch state {
            case .active: return .active
            case .inactive: return .inactive
            case .background: return .background
            @unknown default: return .inactive
            }
        }

        /// `PresentationOptions` as UserNotifications' options, one for one.
        public static func options(_ presentation: PresentationOptions) -> UNNotificationPresentationOptions {
            var options: UNNotificationPresentationOptions = []
            if presentation.contains(.banner) { options.insert(.banner) }
            if presentation.contains(.list) { options.insert(.list) }
            if presentation.contains(.sound) { options.insert(.sound) }
            if presentation.contains(.badge) { options.insert(.badge) }
            return options
        }
    }
#endif
