/// What ``TidingsClient/handleLaunch(_:)`` did with a scene's connection options.
public struct LaunchHandling: Sendable {
    /// The notification response, handled as `didReceive` would (nil when there was none).
    public var response: HandledResponse?
    /// Routes to perform now (only once ``TidingsClient/ready()`` was called, as for a second window);
    /// before that they are held and ``TidingsClient/ready()`` returns them.
    public var routesToPerform: [PendingRoute]
    /// URLs outside the allow-list, for the app to handle its own way.
    public var otherURLs: [String]

    public init(response: HandledResponse?, routesToPerform: [PendingRoute], otherURLs: [String]) {
        self.response = response
        self.routesToPerform = routesToPerform
        self.otherURLs = otherURLs
    }
}
