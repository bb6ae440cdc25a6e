import TidingsModel

/// How often one person may enter a journey. Whatever the rule, a person is in a journey at most once at a time.
public enum JourneyEntryRule: Sendable, Hashable {
    /// At most once ever.
    case once
    /// At most once in this many days, counted from the previous entry.
    case onceEvery(days: Int)
    /// Every trigger while the person is not in the journey.
    case everyTime

    /// The longest `once_every`.
    public static let maximumDays = 365

    /// Whether a person who last entered at `lastEntered` (milliseconds; nil: never) may enter at `now`.
    public func admits(lastEntered: Int64?, now: Int64) -> Bool {
        guard let lastEntered else { return true }
        switch self {
        case .once: return false
        case .onceEvery(let days): return now - lastEntered >= Int64(days) * 86_400_000
        case .everyTime: return true
        }
    }

    /// The rule as the definition gives it: `{"rule": "once" | "once_every" | "every_time", "days": N}`.
    public var json: JSONValue {
        switch self {
        case .once: .object(["rule": .string("once")])
        case .onceEvery(let days): .object(["rule": .string("once_every"), "days": .integer(Int64(days))])
        case .everyTime: .object(["rule": .string("every_time")])
        }
    }
}
