import TidingsModel

/// Which stored events to read, oldest first, one page at a time.
public struct EventQuery: Sendable, Hashable {
    public var type: EventType?
    public var messageID: String?
    public var campaignID: String?
    /// Events recorded while the installation was logged in as this user.
    public var userID: String?
    /// `occurred_at` at or after, in milliseconds since 1970.
    public var since: Int64?
    /// `occurred_at` before, in milliseconds since 1970.
    public var until: Int64?
    /// Received by the server at or after, in milliseconds since 1970: what a tail wants, since an app
    /// uploads events some time after they occur.
    public var receivedSince: Int64?
    /// Continue after this sequence number (from the previous page's ``EventPage/nextSequence``).
    public var afterSequence: Int64?
    public var limit: Int

    public init(
        type: EventType? = nil, messageID: String? = nil, campaignID: String? = nil, userID: String? = nil,
        since: Int64? = nil, until: Int64? = nil, receivedSince: Int64? = nil, afterSequence: Int64? = nil,
        limit: Int = 100
    ) {
        self.userID = userID
        self.type = type
        self.messageID = messageID
        self.campaignID = campaignID
        self.since = since
        self.until = until
        self.receivedSince = receivedSince
        self.afterSequence = afterSequence
        self.limit = limit
    }
}

/// One stored event with the server's bookkeeping.
public struct StoredEvent: Sendable, Hashable {
    /// Increases with every insert; pages are ordered by it.
    public var sequence: Int64
    public var event: TidingsEvent
    /// When the server accepted it, in milliseconds since 1970.
    public var receivedAt: Int64

    public init(sequence: Int64, event: TidingsEvent, receivedAt: Int64) {
        self.sequence = sequence
        self.event = event
        self.receivedAt = receivedAt
    }
}

/// One page of events and where the next one starts.
public struct EventPage: Sendable, Hashable {
    public var events: [StoredEvent]
    /// Pass as ``EventQuery/afterSequence`` for the next page; nil on the last page.
    public var nextSequence: Int64?

    public init(events: [StoredEvent], nextSequence: Int64?) {
        self.events = events
        self.nextSequence = nextSequence
    }
}
