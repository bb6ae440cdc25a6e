import Foundation
import TidingsModel

extension EventStore {
    /// The one place an event becomes its wire bytes; switch this to the faster JSON writer when it lands.
    ///
    /// The bytes are stored as they are and sent as they are, so what the server receives is exactly what
    /// was validated (and sized) at enqueue.
    static func serialize(_ event: TidingsEvent) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return Array(try encoder.encode(event.json))
    }

    /// Reads a stored body back into an event (for the drop report and for tools).
    static func deserialize(_ body: [UInt8]) throws -> TidingsEvent {
        let json = try JSONDecoder().decode(JSONValue.self, from: Data(body))
        return try TidingsEvent(json: json)
    }

    /// The bytes of the request body around the events: `{"events":[` and `]}`.
    static let requestEnvelopeBytes = 13

    /// The body of `POST /v1/events` for `events`: `{"events":[...]}`, built from the stored bytes.
    public static func requestBody(for events: [QueuedEvent]) -> [UInt8] {
        let prefix = Array(#"{"events":["#.utf8)
        var body: [UInt8] = []
        body.reserveCapacity(events.reduce(prefix.count + 2) { $0 + $1.body.count + 1 })
        body.append(contentsOf: prefix)
        for (index, event) in events.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body.append(contentsOf: event.body)
        }
        body.append(contentsOf: Array("]}".utf8))
        return body
    }
}
