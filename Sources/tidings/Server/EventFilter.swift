/// Which stored events `GET /v1/events` answers: every member that is set must match.
struct EventFilter: Sendable, Hashable {
    /// An event type (`delivery`, `open`, `dismiss`, ...).
    var type: String?
    var messageID: String?
    var campaignID: String?
    /// `occurred_at` at or after: milliseconds since 1970 or an ISO 8601 date-time.
    var since: String?
    /// `occurred_at` before: milliseconds since 1970 or an ISO 8601 date-time.
    var until: String?
    /// Received by the server at or after (what `events tail` follows): milliseconds since 1970.
    var receivedSince: String?

    /// The query items of a request for one page.
    func query(cursor: String?, limit: Int?) -> [(String, String?)] {
        [
            ("type", type), ("message_id", messageID), ("campaign_id", campaignID), ("since", since),
            ("until", until), ("received_since", receivedSince), ("cursor", cursor), ("limit", limit.map(String.init)),
        ]
    }
}
