/// What `scene(_:willConnectTo:options:)` found in `UIScene.ConnectionOptions`, as plain values.
///
/// A scene-based app launched by a tap, a URL or a universal link gets it here, not through
/// `scene(_:openURLContexts:)` or `scene(_:continue:)`; without forwarding it, that first link is lost.
public struct SceneLaunch: Sendable, Hashable {
    /// `urlContexts`' URLs and the web page URLs of `userActivities` of type `NSUserActivityTypeBrowsingWeb`.
    public var urls: [String]
    /// `notificationResponse`, when a notification launched the scene.
    public var response: NotificationResponseValues?

    public init(urls: [String] = [], response: NotificationResponseValues? = nil) {
        self.urls = urls
        self.response = response
    }
}
