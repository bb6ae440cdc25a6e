/// A `user.deleted` record on its way to one forwarder; removed once the destination took it.
public struct ErasureNotice: Sendable, Hashable {
    public var id: String
    public var forwarderID: String
    public var appID: String
    /// The erased id itself: destinations need it to find and erase their own copies.
    public var userID: String
    public var pseudonym: String
    public var erasedAt: Int64

    public init(id: String, forwarderID: String, appID: String, userID: String, pseudonym: String, erasedAt: Int64) {
        self.id = id
        self.forwarderID = forwarderID
        self.appID = appID
        self.userID = userID
        self.pseudonym = pseudonym
        self.erasedAt = erasedAt
    }
}
