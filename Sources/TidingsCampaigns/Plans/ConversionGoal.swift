import TidingsModel
import TidingsStore

/// What a message counts as a conversion: an event (`purchase`) recorded within a window after the delivery
/// or the open, by the person the message was assigned to (any of a user's devices when assigned by user).
public struct ConversionGoal: Sendable, Hashable {
    public var event: String
    /// The window in seconds.
    public var withinSeconds: Int64
    public var from: ConversionStart

    public static let shortestWindow: Int64 = 60
    public static let longestWindow: Int64 = 30 * 24 * 3600

    public init(event: String, withinSeconds: Int64, from: ConversionStart) {
        self.event = event
        self.withinSeconds = withinSeconds
        self.from = from
    }

    /// Reads `{"event": "purchase", "within": "24h", "from": "delivery"}` (`from` defaults to `delivery`;
    /// `within` is seconds or a number with `s`, `m`, `h` or `d`).
    static func parse(_ value: JSONValue) throws(MessageError) -> ConversionGoal {
        guard let object = value.objectValue else {
            throw .invalid("conversion", "must be an object such as {\"event\": \"purchase\", \"within\": \"24h\"}")
        }
        for key in object.keys.sorted() where !["event", "within", "from"].contains(key) {
            throw .invalid("conversion.\(key)", "is not a field of a conversion (event, within, from)")
        }
        guard let event = object["event"]?.stringValue, EventType(event).isAccepted else {
            throw .invalid("conversion.event", "must be \(EventType.customNameRule)")
        }
        guard let within = object["within"].flatMap(seconds),
            (shortestWindow...longestWindow).contains(within)
        else {
            throw .invalid(
                "conversion.within",
                "must be a window from 1 minute to 30 days: seconds, or a number with s, m, h or d (\"24h\")")
        }
        var from = ConversionStart.delivery
        if let value = object["from"], !value.isNull {
            guard let name = value.stringValue, let start = ConversionStart(rawValue: name) else {
                throw .invalid("conversion.from", "must be delivery or open")
            }
            from = start
        }
        return ConversionGoal(event: event, withinSeconds: within, from: from)
    }

    /// Seconds, or a number with `s`, `m`, `h` or `d`; nil otherwise.
    static func seconds(_ value: JSONValue) -> Int64? {
        if let seconds = MessagePayloadBuilder.integer(value) { return seconds }
        guard let text = value.stringValue, let unit = text.last, let number = Int64(text.dropLast()) else {
            return nil
        }
        let multiplier: Int64? =
            switch unit {
            case "s": 1
            case "m": 60
            case "h": 3600
            case "d": 86400
            default: nil
            }
        guard let multiplier, number >= 0, number <= longestWindow else { return nil }
        return number * multiplier
    }

    public var json: JSONValue {
        ["event": .string(event), "within_seconds": .integer(withinSeconds), "from": .string(from.rawValue)]
    }

    /// Reads ``json``; nil when it cannot.
    static func decode(_ value: JSONValue?) -> ConversionGoal? {
        guard let value, let event = value["event"]?.stringValue, let within = value["within_seconds"]?.integerValue,
            let from = value["from"]?.stringValue.flatMap(ConversionStart.init(rawValue:))
        else { return nil }
        return ConversionGoal(event: event, withinSeconds: within, from: from)
    }
}
