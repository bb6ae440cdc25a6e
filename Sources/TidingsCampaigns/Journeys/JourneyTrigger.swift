import TidingsModel

/// What enters a person into a journey.
public enum JourneyTrigger: Sendable, Hashable {
    /// An event of theirs is stored.
    case event(JourneyEventMatch)
    /// A custom attribute changes, to `becomes` when given: an installation's for a bare key (`plan`), the user
    /// profile's for `user.KEY` (``userAttributePrefix``), as audiences name them.
    case attribute(key: String, becomes: JSONValue?)
    /// Every day or week at a wall-clock time in each installation's zone, everyone the audience matches.
    case schedule(JourneySchedule)
    /// Joining the saved segment `name`: a person found a member who was last recorded as not one. Who is a
    /// member when the journey starts enters then only when `includeCurrentMembers`.
    case segment(name: String, includeCurrentMembers: Bool)

    /// What starts the key of an attribute trigger that names a user profile's attribute.
    public static let userAttributePrefix = "user."

    /// Whether `key` may follow `attribute` in a trigger: an attribute key, or one after ``userAttributePrefix``.
    public static func isValidAttributeKey(_ key: String) -> Bool {
        let limits = AttributeLimits()
        if key.hasPrefix(userAttributePrefix) {
            return limits.isValidKey(String(key.dropFirst(userAttributePrefix.count)))
        }
        return limits.isValidKey(key)
    }

    public var json: JSONValue {
        switch self {
        case .event(let match): return match.json
        case .attribute(let key, let becomes):
            var object: [String: JSONValue] = ["attribute": .string(key)]
            if let becomes { object["becomes"] = becomes }
            return .object(object)
        case .schedule(let schedule): return .object(["schedule": schedule.json])
        case .segment(let name, let includeCurrentMembers):
            var object: [String: JSONValue] = ["segment": .string(name)]
            if includeCurrentMembers { object["include_current_members"] = .bool(true) }
            return .object(object)
        }
    }
}
