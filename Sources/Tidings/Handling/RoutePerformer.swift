import TidingsModel

/// Performs a ``RoutedAction`` on screen: opens a link, shows a page or a screen, offers a coupon.
///
/// The SDK decides, the performer acts. On iOS, `UIKitRoutePerformer` does it with UIKit; an app with its
/// own navigation (or a test) implements this protocol with plain values.
///
/// ```swift
/// let handled = client.handleResponse(actionIdentifier: id, userInfo: json, appState: .background)
/// performer.perform(handled, userInfo: json)
/// // once the root view is on screen
/// performer.perform(client.ready())
/// ```
@MainActor
public protocol RoutePerformer: AnyObject, Sendable {
    /// Performs one route; never called with ``RoutedAction/none``.
    ///
    /// - Parameters:
    ///   - route: what to do.
    ///   - userInfo: the push the route came from, to report a copied coupon with
    ///     ``TidingsClient/couponCopied(code:userInfo:appState:)``; nil for a URL.
    func perform(_ route: RoutedAction, userInfo: JSONValue?)
}

extension RoutePerformer {
    /// Performs a handled response's route when it is due now (not held, not a repeat, not `.none`).
    ///
    /// - Returns: whether the push was ours; when false, hand the response to the next handler.
    @discardableResult
    public func perform(_ handled: HandledResponse, userInfo: JSONValue?) -> Bool {
        if let route = handled.routeToPerform { perform(route, userInfo: userInfo) }
        return handled.isOurs
    }

    /// Performs the routes ``TidingsClient/ready()`` returns, oldest first, each with its push, skipping
    /// `.none`.
    public func perform(_ routes: [PendingRoute]) {
        for pending in routes where pending.route != .none { perform(pending.route, userInfo: pending.userInfo) }
    }

    /// Performs a URL's deep link when the allow-list accepts it.
    ///
    /// - Returns: whether the URL was ours; when false, the app handles it some other way.
    @discardableResult
    public func perform(_ decision: URLDecision) -> Bool {
        guard decision.isOurs, decision.route != .none else { return false }
        perform(decision.route, userInfo: nil)
        return true
    }
}
