import Foundation
import TidingsModel

extension EventStore {
    /// The one place an event becomes its wire bytes.
    ///
    /// The bytes are stored as they are and sent as they are, so what the server receives is exactly what
    /// was validated (and sized) at enqueue.
    static func serialize(_ event: TidingsEvent) throws -> [UInt8] {
        try event.json.serialized()
    }

    /// Reads a stored body back into an event (for the drop report and for tools).
    static func deserialize(_ body: [UInt8]) throws -> TidingsEvent {
        try TidingsEvent(json: JSONValue.parse(body))
    }
}
