/// What ``Store/forgetUser(appID:userID:)`` changed.
public struct ForgottenUser: Sendable, Hashable {
    /// Installations that were logged in as the user and now belong to nobody.
    public var installations: Int
    /// The user's tags, deleted.
    public var tags: Int
    /// Events that carried the user id, which they no longer do.
    public var events: Int

    public init(installations: Int, tags: Int, events: Int) {
        self.installations = installations
        self.tags = tags
        self.events = events
    }
}
