/// What the route performer does on screen for a ``RoutedAction``: one UIKit call each.
///
/// The decision is here, in plain Swift, so the rules that keep a push from crashing the app or opening
/// arbitrary URLs are tested on Linux: only `http(s)` reaches the in-app browser, and only `http(s)` and
/// the allow-list's schemes reach `UIApplication.open`.
public enum RouteStep: Sendable, Hashable {
    /// Do nothing (`.none`, `.openApp`, or a URL the rules refuse).
    case nothing
    /// `UIApplication.open`: a web page in Safari, or an allowed scheme in the app that owns it.
    case openExternally(url: String)
    /// `SFSafariViewController`; always an `http(s)` URL with a host.
    case openInAppBrowser(url: String)
    /// The app's own deep-link handler.
    case openDeepLinkInApp(url: String)
    /// The app's screen callback.
    case showScreen(name: String, parameters: [String: JSONValue])
    /// The "Copy coupon code?" prompt, then `then` (already a step).
    indirect case offerCoupon(code: String, then: RouteStep)
    /// The app's button handler (a reply or a custom button).
    case passToApp(RoutedAction)

    /// The step for `route`.
    ///
    /// - Parameters:
    ///   - allowList: the schemes allowed outside the app besides `http(s)`.
    ///   - opensDeepLinksInApp: whether the app gave a deep-link handler; without one a deep link goes to
    ///     `UIApplication.open`, which brings the app's own scheme back to `application(_:open:)`.
    public init(route: RoutedAction, allowList: DeepLinkAllowList, opensDeepLinksInApp: Bool) {
        switch route {
        case .none, .openApp:
            self = .nothing
        case .deepLink(let url):
            self = opensDeepLinksInApp ? .openDeepLinkInApp(url: url) : Self.external(url, allowList: allowList)
        case .web(let url, inApp: true) where DeepLinkAllowList.isBrowsable(url):
            self = .openInAppBrowser(url: url)
        case .web(let url, _):
            self = Self.external(url, allowList: allowList)
        case .screen(let name, let parameters):
            self = .showScreen(name: name, parameters: parameters)
        case .coupon(let code, let then):
            let next = then.map { RouteStep(route: $0, allowList: allowList, opensDeepLinksInApp: opensDeepLinksInApp) }
            self = .offerCoupon(code: code, then: next ?? .nothing)
        case .reply, .custom:
            self = .passToApp(route)
        }
    }

    private static func external(_ url: String, allowList: DeepLinkAllowList) -> RouteStep {
        allowList.externalRejectionReason(url) == nil ? .openExternally(url: url) : .nothing
    }
}
