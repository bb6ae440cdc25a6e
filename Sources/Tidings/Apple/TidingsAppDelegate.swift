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
    /// UIKit: make the app delegate a subclass, and call `super` from `application(_:didFinishLaunchingWithOptions:)`
    /// and the token callbacks you override. For background pushes do not override
    /// `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)`: override
    /// ``performBackgroundWork(for:completion:)``, which gets every push that is not Tidings' (and
    /// Tidings' pushes that ask for app work), and call its completion once.
    open class TidingsAppDelegate: UIResponder, UIApplicationDelegate {
        /// Set once the integration started; nil while the configuration or the container cannot be opened.
        public private(set) var integration: TidingsAutomaticIntegration?
        /// The client, for the app's own calls (login, tags, inbox, permission).
        public var client: TidingsClient? { integration?.client }
        /// Why the integration could not start, when it could not.
        public private(set) var integrationError: (any Error)?
        private var retryObserver: (any NSObjectProtocol)?

        /// The configuration; the main bundle's Info.plist unless overridden.
        open func makeConfiguration() throws -> TidingsClient.Configuration {
            try TidingsClient.Configuration(infoPlist: Bundle.main.infoDictionary ?? [:])
        }

        /// Called when the configuration or the container cannot be opened; the app runs without Tidings.
        /// A container locked before the first unlock is tried again once protected data is available
        /// (``IntegrationRetry``). The default does nothing else: it never crashes the app.
        open func integrationFailed(_ error: any Error) {}

        open func application(
            _ application: UIApplication,
            didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
        ) -> Bool {
            startIntegration()
            return true
        }

        private func startIntegration() {
            guard integration == nil else { return }
            do {
                integration = try TidingsClient.automaticIntegration(configuration: makeConfiguration())
                integrationError = nil
                if let retryObserver { NotificationCenter.default.removeObserver(retryObserver) }
                retryObserver = nil
            } catch {
                integrationError = error
                integrationFailed(error)
                guard IntegrationRetry(after: error) == .whenProtectedDataIsAvailable, retryObserver == nil else {
                    return
                }
                retryObserver = NotificationCenter.default.addObserver(
                    forName: UIApplication.protectedDataDidBecomeAvailableNotification, object: nil, queue: .main
                ) { [weak self] _ in MainActor.assumeIsolated { self?.startIntegration() } }
            }
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

        /// Forwards to Tidings; the completion handler is called exactly once, by Tidings or by
        /// ``performBackgroundWork(for:completion:)`` (``BackgroundFetchDispatch``).
        public func application(
            _ application: UIApplication, didReceiveRemoteNotification userInfo: [AnyHashable: Any],
            fetchCompletionHandler completionHandler: @escaping (UIBackgroundFetchResult) -> Void
        ) {
            let appWork: (@escaping (UIBackgroundFetchResult) -> Void) -> Void = { [self] done in
                self.performBackgroundWork(for: userInfo, completion: done)
            }
            guard let client else { return appWork(completionHandler) }
            client.didReceiveRemoteNotification(userInfo: userInfo, completion: completionHandler, appWork: appWork)
        }

        /// The app's own work for a background push that is not Tidings' (another vendor's, the app's), or
        /// Tidings' when it asks for app work. Call `completion` once; the default completes with `.noData`.
        open func performBackgroundWork(
            for userInfo: [AnyHashable: Any], completion: @escaping (UIBackgroundFetchResult) -> Void
        ) {
            completion(.noData)
        }
    }
#endif
