/// What to do after the person tapped, dismissed or answered a notification (`didReceive response`).
public struct ResponseDecision: Sendable, Hashable {
    /// Whether the push was ours; when false, pass the response on to the next handler.
    public var isOurs: Bool
    /// Events to record, in order.
    public var events: [TidingsEvent]
    /// What the app should do next.
    public var route: RoutedAction

    public init(isOurs: Bool, events: [TidingsEvent], route: RoutedAction) {
        self.isOurs = isOurs
        self.events = events
        self.route = route
    }
}
