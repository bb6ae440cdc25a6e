/// What ``TidingsClient/handleResponse(actionIdentifier:userText:userInfo:appState:requestIdentifier:)``
/// did with a notification response.
public struct HandledResponse: Sendable {
    /// Whether the push was ours; when false, hand the response to the next handler.
    public var isOurs: Bool
    /// Perform now, held until ``TidingsClient/ready()``, or a repeat of a response already handled.
    public var submission: ColdStartBuffer<RoutedAction>.Submission
    /// The events recorded for it (none for a repeat).
    public var events: [TidingsEvent]

    public init(isOurs: Bool, submission: ColdStartBuffer<RoutedAction>.Submission, events: [TidingsEvent]) {
        self.isOurs = isOurs
        self.submission = submission
        self.events = events
    }

    /// The route to perform now, or nil when it is held, repeated or there is nothing to do.
    public var routeToPerform: RoutedAction? {
        if case .performNow(let route) = submission, route != .none { return route }
        return nil
    }
}
