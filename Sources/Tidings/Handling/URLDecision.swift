/// What to do with a URL arriving through `application(_:open:)`, `scene(_:openURLContexts:)` or a universal
/// link's user activity.
public struct URLDecision: Sendable, Hashable {
    /// Whether the URL is in the deep-link allow-list; when false, the app handles it some other way.
    public var isOurs: Bool
    /// `.deepLink` when ours, `.none` otherwise.
    public var route: RoutedAction
    /// Why the URL is not ours, for the log.
    public var reason: String?

    public init(isOurs: Bool, route: RoutedAction, reason: String?) {
        self.isOurs = isOurs
        self.route = route
        self.reason = reason
    }
}
