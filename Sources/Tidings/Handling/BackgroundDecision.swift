/// What to do with a push delivered to `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)`.
public struct BackgroundDecision: Sendable, Hashable {
    /// Whether the push was ours.
    public var isOurs: Bool
    /// Whether the app should run its own refresh work: false for internal pushes of any vendor (uninstall
    /// tracking, sync), which would otherwise wake a whole fleet into refreshing at once.
    public var shouldAppWork: Bool
    /// Events to record (`silent_received`).
    public var events: [TidingsEvent]
    /// A `delivery` for a visible push that also woke the app, to record through the de-duplicating path.
    public var deliveryCandidate: TidingsEvent?

    public init(isOurs: Bool, shouldAppWork: Bool, events: [TidingsEvent], deliveryCandidate: TidingsEvent?) {
        self.isOurs = isOurs
        self.shouldAppWork = shouldAppWork
        self.events = events
        self.deliveryCandidate = deliveryCandidate
    }
}
