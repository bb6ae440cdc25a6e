import TidingsModel

/// A recurring entry: every day, or every week on one weekday, at a wall-clock time in each installation's own
/// zone, for everyone the audience expression matches then.
public struct JourneySchedule: Sendable, Hashable {
    public var hour: Int
    public var minute: Int
    /// 1 (Sunday) to 7 (Saturday), as `Calendar` counts; nil: every day.
    public var weekday: Int?
    public var audience: String

    public static let weekdayNames = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]

    public init(hour: Int, minute: Int, weekday: Int?, audience: String) {
        self.hour = hour
        self.minute = minute
        self.weekday = weekday
        self.audience = audience
    }

    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "every": .string(weekday == nil ? "day" : "week"),
            "at": .string(JourneyWallClock(hour: hour, minute: minute).text), "audience": .string(audience),
        ]
        if let weekday { object["weekday"] = .string(Self.weekdayNames[weekday - 1]) }
        return .object(object)
    }
}
