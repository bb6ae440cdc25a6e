/// A route waiting for the app's UI, with the push it came from.
public struct PendingRoute: Sendable, Hashable {
    public var route: RoutedAction
    /// The push's `userInfo`, to report a copied coupon with; nil for a URL.
    public var userInfo: JSONValue?

    public init(_ route: RoutedAction, userInfo: JSONValue? = nil) {
        self.route = route
        self.userInfo = userInfo
    }
}
