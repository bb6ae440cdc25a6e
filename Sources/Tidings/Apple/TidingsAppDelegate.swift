#if canImport(UIKit) && canImport(UserNotifications)
    import Foundation
    import UIKit

    /// An app delegate that runs the automatic integration and forwards the callbacks only an app delegate
    /// receives: the device token and background pushes.
    ///
    /// SwiftUI:
    ///
    /// ```swift
    /// @main struct ShopApp: App {
    ///     @UIApplicationDelegateAdaptor(TidingsAppDelegate.self) var tidings
    ///     var body: some Scene { WindowGroup { ContentView() } }
    /// }
    /// ```
    ///
    /// UIKit: make the app delegate a subclass, and call `super` from the methods you override.
    open class TidingsAppDelegate: UIResponder, UIApplicationDelegate {
        /// Set once `application(_:didFinishLaunchingWithOptions:)` ran; nil when the configuration failed.
        public private(set) var integration: TidingsAutomaticIntegration?
        /// The client, for the app's own calls (login, tags, inbox, permission).
        public var client: TidingsClient? { integration?.client }

        /// The configuration; the main bundle's Info.plist unless overridden.
        open func makeConfiguration() throws -> TidingsClient.Configuration {
            try TidingsClient.Configuration(infoPlist: Bundle.main.infoDictionary ?? [:])
        }

        /// Called when the configuration or the container cannot be opened; the app runs without Tidings.
        open func integrationFailed(_ error: any Error) {
            assertionFailure("Tidings is not configured: \(error)")
        }

        open func application(
            _ application: UIApplication,
            didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
        ) -> Bool {
            do {
                integration = try TidingsClient.automaticIntegration(configuration: makeConfiguration())
            } catch {
                integrationFailed(error)
            }
            return true
        }

        open func application(
            _ application: UIApplication, didRegisterForRemoteNotificationsWithDeviceToken deviceToken: Data
        ) {
            integration?.didRegisterForRemoteNotifications(deviceToken: deviceToken)
        }

        open func application(
            _ application: UIApplication, didFailToRegisterForRemoteNotificationsWithError error: any Error
        ) {
            // Expected on the Simulator without a push-capable profile; the next launch tries again.
        }

        open func application(
            _ application: UIApplication, didReceiveRemoteNotification userInfo: [AnyHashable: Any],
            fetchCompletionHandler completionHandler: @escaping (UIBackgroundFetchResult) -> Void
        ) {
            guard let client else { return completionHandler(.noData) }
            client.didReceiveRemoteNotification(userInfo: userInfo, completion: completionHandler)
        }
    }
#endif
