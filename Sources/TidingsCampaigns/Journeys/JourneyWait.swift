import TidingsModel

/// How long a wait step holds a person.
public enum JourneyWait: Sendable, Hashable {
    case duration(seconds: Int64)
    /// Until the next time the person's clock shows this time.
    case untilLocalTime(JourneyWallClock)
    /// Until the person emits a matching event, or `timeoutSeconds` pass; each outcome may go its own way.
    case forEvent(JourneyEventMatch, timeoutSeconds: Int64, onEvent: String?, onTimeout: String?)

    /// The longest wait: 90 days.
    public static let maximumSeconds: Int64 = 90 * 86_400

    var fields: [String: JSONValue] {
        switch self {
        case .duration(let seconds): return ["duration": .integer(seconds)]
        case .untilLocalTime(let clock): return ["until_local_time": .string(clock.text)]
        case .forEvent(let match, let timeout, let onEvent, let onTimeout):
            var object: [String: JSONValue] = ["for_event": .string(match.type), "timeout": .integer(timeout)]
            if let condition = match.json.objectValue?["where"] { object["where"] = condition }
            if let onEvent { object["on_event"] = .string(onEvent) }
            if let onTimeout { object["on_timeout"] = .string(onTimeout) }
            return object
        }
    }
}
