import TidingsModel

/// What enters a person into a journey.
public enum JourneyTrigger: Sendable, Hashable {
    /// An event of theirs is stored.
    case event(JourneyEventMatch)
    /// An installation's custom attribute changes, to `becomes` when given.
    case attribute(key: String, becomes: JSONValue?)
    /// Every day or week at a wall-clock time in each installation's zone, everyone the audience matches.
    case schedule(JourneySchedule)

    public var json: JSONValue {
        switch self {
        case .event(let match): return match.json
        case .attribute(let key, let becomes):
            var object: [String: JSONValue] = ["attribute": .string(key)]
            if let becomes { object["becomes"] = becomes }
            return .object(object)
        case .schedule(let schedule): return .object(["schedule": schedule.json])
        }
    }
}
