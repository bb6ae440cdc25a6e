/// A batch a destination refused for good (a 4xx other than 408 and 429), parked so it does not block the
/// events after it.
///
/// It names the events by their sequence range rather than copying them: a replay reads them from the
/// store again and applies the destination's current filter.
public struct DeadLetterRecord: Sendable, Hashable {
    /// Parked, or waiting for the worker to send it again.
    public enum State: String, Sendable, Hashable {
        case parked
        case replaying
    }

    public var id: String
    public var forwarderID: String
    public var appID: String
    /// The first and last sequence numbers of the batch (inclusive).
    public var firstSequence: Int64
    public var lastSequence: Int64
    public var eventCount: Int
    /// The destination's HTTP status, when it answered.
    public var status: Int?
    /// What the destination said, shortened.
    public var error: String
    public var state: State
    /// Sends so far, the first included.
    public var attempts: Int
    public var createdAt: Int64
    public var updatedAt: Int64

    public init(
        id: String, forwarderID: String, appID: String, firstSequence: Int64, lastSequence: Int64, eventCount: Int,
        status: Int?, error: String, state: State = .parked, attempts: Int = 1, createdAt: Int64, updatedAt: Int64
    ) {
        self.id = id
        self.forwarderID = forwarderID
        self.appID = appID
        self.firstSequence = firstSequence
        self.lastSequence = lastSequence
        self.eventCount = eventCount
        self.status = status
        self.error = error
        self.state = state
        self.attempts = attempts
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}
