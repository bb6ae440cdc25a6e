#if canImport(UIKit) && canImport(UserNotifications)
    import UIKit

    /// A window-scene delegate that hands the automatic integration what reaches scenes only: the tap, URL
    /// or universal link that launched a scene, and URLs and universal links while it runs.
    ///
    /// UIKit apps with scenes: make the scene delegate a subclass and call `super`. SwiftUI apps do not need
    /// it: taps arrive through the notification-centre proxy, and URLs through `.onOpenURL`.
    open class TidingsSceneDelegate: UIResponder, UIWindowSceneDelegate {
        open var window: UIWindow?

        /// The running integration; nil before `application(_:didFinishLaunchingWithOptions:)` set one up.
        open var integration: TidingsAutomaticIntegration? { TidingsAutomaticIntegration.current }

        open func scene(
            _ scene: UIScene, willConnectTo session: UISceneSession,
            options connectionOptions: UIScene.ConnectionOptions
        ) {
            guard let integration else { return }
            integration.client.connect(connectionOptions, performer: integration.performer)
        }

        open func scene(_ scene: UIScene, openURLContexts urlContexts: Set<UIOpenURLContext>) {
            guard let integration else { return }
            integration.client.open(urlContexts, performer: integration.performer)
        }

        open func scene(_ scene: UIScene, continue userActivity: NSUserActivity) {
            guard let integration else { return }
            integration.client.continue(userActivity, performer: integration.performer)
        }
    }
#endif
