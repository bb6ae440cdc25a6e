/// The body of `POST /v1/events`: `{"events":[...]}`, at most 500 events and 1 MiB.
public struct EventBatch: Sendable, Hashable, Codable {
    public var events: [TidingsEvent]

    public init(events: [TidingsEvent]) {
        self.events = events
    }
}
