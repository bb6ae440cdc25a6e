import Foundation

/// What the route performer does on screen for a ``RoutedAction``: one UIKit call each.
///
/// The decision is here, in plain Swift, so the rules that keep a push from crashing the app or opening
/// arbitrary URLs are tested on Linux: only `http(s)` reaches the in-app browser, only `http(s)` and
/// the allow-list's schemes reach `UIApplication.open`, and the app's own schemes never do (the system would
/// hand them straight back to `.onOpenURL`/`application(_:open:)`: a loop).
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
    ///   - appSchemes: the app's own URL schemes (`CFBundleURLTypes`); a URL with one of them always goes to
    ///     the app's deep-link handler, never to `UIApplication.open`.
    ///   - opensDeepLinksInApp: whether the app gave a deep-link handler; without one a deep link to another
    ///     app's allowed scheme goes to `UIApplication.open`.
    public init(
        route: RoutedAction, allowList: DeepLinkAllowList, appSchemes: Set<String> = [], opensDeepLinksInApp: Bool
    ) {
        let appSchemes = Set(appSchemes.map { $0.lowercased() })
        switch route {
        case .none, .openApp:
            self = .nothing
        case .deepLink(let url) where Self.hasScheme(url, in: appSchemes) && allowList.allows(url):
            self = .openDeepLinkInApp(url: url)
        case .deepLink(let url):
            self = opensDeepLinksInApp ? .openDeepLinkInApp(url: url) : Self.external(url, allowList: allowList)
        case .web(let url, inApp: true) where DeepLinkAllowList.isBrowsable(url):
            self = .openInAppBrowser(url: url)
        case .web(let url, _) where Self.hasScheme(url, in: appSchemes):
            self = allowList.allows(url) ? .openDeepLinkInApp(url: url) : .nothing
        case .web(let url, _):
            self = Self.external(url, allowList: allowList)
        case .screen(let name, let parameters):
            self = .showScreen(name: name, parameters: parameters)
        case .coupon(let code, let then):
            let next = then.map {
                RouteStep(
                    route: $0, allowList: allowList, appSchemes: appSchemes, opensDeepLinksInApp: opensDeepLinksInApp)
            }
            self = .offerCoupon(code: code, then: next ?? .nothing)
        case .reply, .custom:
            self = .passToApp(route)
        }
    }

    /// The step to take when nothing is on screen to present from (no key window yet, or the scene is in the
    /// background): an in-app page opens outside the app instead of being dropped, a coupon prompt is
    /// skipped for what follows it, and everything else is unchanged.
    public var withoutPresenter: RouteStep {
        switch self {
        case .openInAppBrowser(let url): .openExternally(url: url)
        case .offerCoupon(_, let then): then.withoutPresenter
        default: self
        }
    }

    private static func external(_ url: String, allowList: DeepLinkAllowList) -> RouteStep {
        allowList.externalRejectionReason(url) == nil ? .openExternally(url: url) : .nothing
    }

    private static func hasScheme(_ url: String, in schemes: Set<String>) -> Bool {
        guard !schemes.isEmpty, let scheme = URLComponents(string: url)?.scheme?.lowercased() else { return false }
        return schemes.contains(scheme)
    }
}
