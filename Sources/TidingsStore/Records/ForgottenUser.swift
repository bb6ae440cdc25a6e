/// What ``ErasureStore/eraseUser(_:)`` changed.
public struct ForgottenUser: Sendable, Hashable {
    /// Installations that were logged in as the user and now belong to nobody, without custom attributes.
    public var installations: Int
    /// The user's tags, deleted.
    public var tags: Int
    /// Events that carried the user id, which no longer carry it, their value or their attributes.
    public var events: Int
    /// Messages whose `user_ids` target named the user and now names the pseudonym.
    public var messages: Int
    /// Audit entries whose target named the user and now names the pseudonym.
    public var auditEntries: Int
    /// `user.deleted` notices queued, one per forwarder of the app.
    public var forwarderNotices: Int
    /// The user's profile (user-level attributes), deleted: 1 or 0.
    public var profiles: Int

    public init(
        installations: Int, tags: Int, events: Int, messages: Int = 0, auditEntries: Int = 0,
        forwarderNotices: Int = 0, profiles: Int = 0
    ) {
        self.profiles = profiles
        self.installations = installations
        self.tags = tags
        self.events = events
        self.messages = messages
        self.auditEntries = auditEntries
        self.forwarderNotices = forwarderNotices
    }
}
