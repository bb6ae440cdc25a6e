import TidingsModel

/// Follows `GET /v1/events` for new events, each returned once, without building a cursor by hand.
///
/// The server orders events by the sequence it stored them in and gives a cursor only for a full page; the
/// last page has none. So the tailer asks again from the cursor that produced the last (partial) page and
/// skips the events of that page it already returned: new events can only be appended after them. Memory is
/// bounded by one page of event ids.
struct EventTailer {
    let filter: EventFilter
    /// The cursor of the page being filled; nil for the first page.
    private var pageCursor: String?
    /// Event ids already returned from that page.
    private var returnedOnPage: Set<String> = []
    /// Whether the last poll ended on a full page, so more events are waiting right now.
    private(set) var hasMore = false

    init(filter: EventFilter) {
        self.filter = filter
    }

    /// The events stored since the last poll, oldest first.
    mutating func poll(_ client: ServerClient, pageSize: Int) async throws(ServerClientError) -> [JSONValue] {
        let page = try await client.events(filter, cursor: pageCursor, limit: pageSize)
        var fresh: [JSONValue] = []
        for event in page.items {
            let id = event["event_id"]?.stringValue ?? ""
            if returnedOnPage.insert(id).inserted { fresh.append(event) }
        }
        if let next = page.nextCursor {
            pageCursor = next
            returnedOnPage = []
            hasMore = true
        } else {
            hasMore = false
        }
        return fresh
    }
}
