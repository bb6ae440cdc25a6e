import Foundation

/// The server's answer for one event of a batch, keyed by `event_id` — never by position.
public struct EventReceipt: Sendable, Hashable, Codable {
    /// What the server did with the event.
    public enum Status: String, Sendable, Hashable, Codable {
        /// Stored now.
        case accepted
        /// Stored earlier under the same `event_id`; the client may forget it.
        case duplicate
        /// Invalid and never going to be accepted; the client drops it (alone) and counts it.
        case rejected
    }

    /// The event's id as the client sent it (lower-case UUID), or nil when the event had no readable id.
    public var eventID: String?
    public var status: Status
    /// Why, for `rejected`.
    public var error: WireError?

    public init(eventID: String?, status: Status, error: WireError? = nil) {
        self.eventID = eventID
        self.status = status
        self.error = error
    }

    enum CodingKeys: String, CodingKey {
        case eventID = "event_id"
        case status
        case error
    }
}

/// The answer to `POST /v1/events`: `{"receipts":[...]}`.
public struct EventBatchResponse: Sendable, Hashable, Codable {
    public var receipts: [EventReceipt]

    public init(receipts: [EventReceipt]) {
        self.receipts = receipts
    }
}
