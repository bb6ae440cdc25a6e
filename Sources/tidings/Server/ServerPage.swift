import TidingsModel

/// One page of a list endpoint (`GET /v1/installations`, `GET /v1/events`) and the cursor of the next.
struct ServerPage: Sendable, Hashable {
    var items: [JSONValue]
    /// Pass to the next call; nil on the last page.
    var nextCursor: String?
}
