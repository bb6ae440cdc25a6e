import Foundation

/// A time of day (`"09:30"`) and the next instant it is shown on a clock in a zone.
public struct JourneyWallClock: Sendable, Hashable {
    public var hour: Int
    public var minute: Int

    public init(hour: Int, minute: Int) {
        self.hour = hour
        self.minute = minute
    }

    /// Reads `HH:MM`, 00:00 to 23:59; nil otherwise.
    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        // Int("+9") is 9: only two ASCII digits each.
        let digits = UInt8(ascii: "0")...UInt8(ascii: "9")
        guard parts.count == 2, parts.allSatisfy({ $0.utf8.count == 2 && $0.utf8.allSatisfy(digits.contains) }),
            let hour = Int(parts[0]),
            let minute = Int(parts[1]), (0..<24).contains(hour), (0..<60).contains(minute)
        else { return nil }
        self.init(hour: hour, minute: minute)
    }

    public var text: String {
        (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
    }

    /// The first instant after `now` at which a clock in `zone` shows this time (on `weekday`, 1 = Sunday,
    /// when given). A time skipped by a daylight-saving jump is taken as the first instant after the jump.
    public func next(after now: Date, in zone: TimeZone, weekday: Int? = nil) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        var components = DateComponents(hour: hour, minute: minute, second: 0)
        components.weekday = weekday
        return calendar.nextDate(
            after: now, matching: components, matchingPolicy: .nextTime, repeatedTimePolicy: .first,
            direction: .forward) ?? now.addingTimeInterval(86_400)
    }
}
