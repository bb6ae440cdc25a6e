/// Which of an app's messages a listing returns, newest first.
public struct MessageListQuery: Sendable, Hashable {
    /// Only messages in this state, when set.
    public var state: MessageRecord.State?
    /// Only messages of this campaign, when set.
    public var campaignID: String?
    /// Continue after this message: the last of the previous page (its creation time and id).
    public var after: (createdAt: Int64, id: String)? {
        get { afterCreatedAt.flatMap { createdAt in afterID.map { (createdAt, $0) } } }
        set {
            afterCreatedAt = newValue?.createdAt
            afterID = newValue?.id
        }
    }
    public var limit: Int
    private var afterCreatedAt: Int64?
    private var afterID: String?

    public init(
        state: MessageRecord.State? = nil, campaignID: String? = nil, after: (createdAt: Int64, id: String)? = nil,
        limit: Int = 50
    ) {
        self.state = state
        self.campaignID = campaignID
        self.limit = limit
        self.after = after
    }
}
