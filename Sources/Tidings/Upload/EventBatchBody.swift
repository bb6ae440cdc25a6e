/// Builds the `POST /v1/events` body by concatenating stored event JSON, without re-encoding.
public enum EventBatchBody {
    private static let prefix = Array(#"{"events":["#.utf8)
    private static let suffix = Array("]}".utf8)

    /// The bytes of a batch around `bodies` beyond the bodies themselves (prefix, suffix, commas).
    public static func overhead(eventCount: Int) -> Int {
        prefix.count + suffix.count + max(0, eventCount - 1)
    }

    /// `{"events":[` + bodies joined by `,` + `]}`.
    public static func make(_ events: [QueuedEvent]) -> [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(events.reduce(overhead(eventCount: events.count)) { $0 + $1.body.count })
        body.append(contentsOf: prefix)
        for (index, event) in events.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body.append(contentsOf: event.body)
        }
        body.append(contentsOf: suffix)
        return body
    }
}
