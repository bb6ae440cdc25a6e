#if canImport(UIKit) && canImport(SafariServices)
    import Foundation
    import SafariServices
    import TidingsModel
    import UIKit

    /// Performs routes with UIKit, one call per ``RouteStep`` the client chose: links through
    /// `UIApplication.open`, `http(s)` pages in an `SFSafariViewController`, screens, replies and custom
    /// buttons through the app's closures, and coupons through a "Copy coupon code?" alert.
    ///
    /// ```swift
    /// let performer = UIKitRoutePerformer(client: client) { name, parameters in router.show(name, parameters) }
    /// ```
    @MainActor
    public final class UIKitRoutePerformer: RoutePerformer {
        public let client: TidingsClient
        /// Shows an app screen by name.
        public var showScreen: (String, [String: JSONValue]) -> Void
        /// Opens a deep link inside the app (the app's router); nil hands an allowed one to
        /// `UIApplication.open`.
        ///
        /// - Important: set it when URLs reach the app through ``TidingsClient/open(_:performer:)``: the
        ///   app's own scheme given to `UIApplication.open` comes straight back to `application(_:open:)`.
        public var openDeepLink: ((URL) -> Void)?
        /// Receives a reply's text or a custom button; nil ignores them.
        public var handleButton: ((RoutedAction) -> Void)?
        /// The alert's texts, for localisation.
        public var couponTitle = "Copy coupon code?"
        public var copyTitle = "Copy"
        public var cancelTitle = "Cancel"

        public init(
            client: TidingsClient, openDeepLink: ((URL) -> Void)? = nil, handleButton: ((RoutedAction) -> Void)? = nil,
            showScreen: @escaping (String, [String: JSONValue]) -> Void = { _, _ in }
        ) {
            self.client = client
            self.openDeepLink = openDeepLink
            self.handleButton = handleButton
            self.showScreen = showScreen
        }

        public func perform(_ route: RoutedAction, userInfo: JSONValue?) {
            apply(client.step(for: route, opensDeepLinksInApp: openDeepLink != nil), userInfo: userInfo)
        }

        /// Carries out one step; the client decided it (``RouteStep``), so nothing here checks a URL again.
        private func apply(_ step: RouteStep, userInfo: JSONValue?) {
            switch step {
            case .nothing:
                break
            case .openExternally(let url):
                if let url = URL(string: url) { UIApplication.shared.open(url) }
            case .openInAppBrowser(let link):
                openInAppBrowser(link, userInfo: userInfo)
            case .openDeepLinkInApp(let url):
                if openDeepLink == nil {
                    client.logger.warning("deep link dropped: set UIKitRoutePerformer.openDeepLink")
                }
                if let url = URL(string: url) { openDeepLink?(url) }
            case .showScreen(let name, let parameters):
                showScreen(name, parameters)
            case .offerCoupon(let code, let then):
                offerCoupon(code, userInfo: userInfo) { [weak self] in self?.apply(then, userInfo: userInfo) }
            case .passToApp(let route):
                handleButton?(route)
            }
        }

        /// The page in an `SFSafariViewController`; outside the app when nothing is on screen to present from.
        private func openInAppBrowser(_ link: String, userInfo: JSONValue?) {
            guard let presenter = Self.topViewController() else {
                return apply(RouteStep.openInAppBrowser(url: link).withoutPresenter, userInfo: userInfo)
            }
            if let url = URL(string: link) { presenter.present(SFSafariViewController(url: url), animated: true) }
        }

        private func offerCoupon(_ code: String, userInfo: JSONValue?, then followUp: @escaping () -> Void) {
            guard let presenter = Self.topViewController() else { return followUp() }
            let alert = UIAlertController(title: couponTitle, message: code, preferredStyle: .alert)
            alert.addAction(
                UIAlertAction(title: copyTitle, style: .default) { [client] _ in
                    UIPasteboard.general.string = code
                    if let userInfo { client.couponCopied(code: code, userInfo: userInfo) }
                    followUp()
                })
            alert.addAction(UIAlertAction(title: cancelTitle, style: .cancel) { _ in followUp() })
            presenter.present(alert, animated: true)
        }

        /// The view controller on top of the key window, to present from.
        public static func topViewController() -> UIViewController? {
            let window = UIApplication.shared.connectedScenes.compactMap { $0 as? UIWindowScene }
                .flatMap(\.windows).first(where: \.isKeyWindow)
            var top = window?.rootViewController
            while true {
                if let presented = top?.presentedViewController {
                    top = presented
                } else if let navigation = top as? UINavigationController,
                    let visible = navigation.visibleViewController
                {
                    top = visible
                } else if let tabs = top as? UITabBarController, let selected = tabs.selectedViewController {
                    top = selected
                } else {
                    return top
                }
            }
        }
    }
#endif
