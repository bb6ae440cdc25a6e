import Foundation
import TidingsModel

/// The durable queue the uploader drains: the contract between ``EventStore`` and the uploader.
///
/// Rows handed out by ``lease(maxEvents:maxBytes:)`` are not handed out again until the lease is
/// settled or expires, so a crashed uploader's rows come back and two uploaders never send the same row.
public protocol EventQueue: Sendable {
    /// Takes up to `maxEvents` of the oldest unleased events, whose serialised sizes add up to at most
    /// `maxBytes` (at least one event is returned even if it alone is larger, so it can be judged).
    func lease(maxEvents: Int, maxBytes: Int) throws -> EventLease?

    /// Deletes the events the server accepted or already had.
    func acknowledge(_ eventIDs: [UUID], lease: EventLease) throws

    /// Deletes events the server rejected for good, counting them as dropped with `reason`.
    func reject(_ eventIDs: [UUID], reason: String, lease: EventLease) throws

    /// Ends the lease without deleting anything: the remaining rows can be leased again at once.
    func release(_ lease: EventLease) throws

    /// Deletes events older than `cutoff` (milliseconds since 1970), counting them as dropped; returns how many.
    @discardableResult
    func dropEvents(olderThan cutoff: Int64) throws -> Int

    /// How many events wait, leased or not.
    func count() throws -> Int
}

/// A set of events handed to one upload attempt.
public struct EventLease: Sendable, Hashable {
    /// Identifies this lease in the store.
    public var id: UUID
    public var events: [QueuedEvent]
    /// When the store hands these rows out again if the lease is not settled (milliseconds since 1970).
    public var expiresAt: Int64

    public init(id: UUID, events: [QueuedEvent], expiresAt: Int64) {
        self.id = id
        self.events = events
        self.expiresAt = expiresAt
    }
}

/// One stored event: its id, its order and its wire JSON, ready to be concatenated into a batch body.
public struct QueuedEvent: Sendable, Hashable {
    /// Monotonic enqueue order.
    public var sequence: Int64
    public var eventID: UUID
    public var type: EventType
    /// Milliseconds since 1970.
    public var occurredAt: Int64
    /// The event's wire JSON object, exactly as it will be sent.
    public var body: [UInt8]

    public init(sequence: Int64, eventID: UUID, type: EventType, occurredAt: Int64, body: [UInt8]) {
        self.sequence = sequence
        self.eventID = eventID
        self.type = type
        self.occurredAt = occurredAt
        self.body = body
    }
}
