import Foundation

/// A wall-clock date and time with no zone (`2026-12-24T09:00`), placed in a zone when it is used.
public struct LocalDateTime: Sendable, Hashable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int
    public var hour: Int
    public var minute: Int
    public var second: Int

    /// Reads `YYYY-MM-DDTHH:MM` or `YYYY-MM-DDTHH:MM:SS`; nil for anything else or an impossible date.
    public init?(_ text: String) {
        let parts = text.split(separator: "T", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let date = parts[0].split(separator: "-", omittingEmptySubsequences: false)
        let time = parts[1].split(separator: ":", omittingEmptySubsequences: false)
        guard date.count == 3, date[0].count == 4, date[1].count == 2, date[2].count == 2,
            (2...3).contains(time.count), time.allSatisfy({ $0.count == 2 }),
            (date + time).allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let year = Int(date[0]), let month = Int(date[1]), let day = Int(date[2]),
            let hour = Int(time[0]), let minute = Int(time[1])
        else { return nil }
        let second = time.count == 3 ? Int(time[2]) ?? 0 : 0
        guard (1...12).contains(month), (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute),
            (0...59).contains(second)
        else { return nil }
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        // February 30th and the like: the calendar would roll it over; refuse it instead.
        guard let instant = Self.utc.date(from: components),
            Self.utc.dateComponents([.year, .month, .day], from: instant).day == day
        else { return nil }
    }

    public var description: String {
        String(format: "%04d-%02d-%02dT%02d:%02d", year, month, day, hour, minute)
            + (second == 0 ? "" : String(format: ":%02d", second))
    }

    var components: DateComponents {
        DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    /// This wall-clock time read as UTC.
    public var asUTC: Date {
        Self.utc.date(from: components) ?? Date(timeIntervalSince1970: 0)
    }

    private static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    /// The instant this wall-clock time is in `identifier` (an IANA zone); nil when the zone is unknown.
    ///
    /// Daylight-saving changes are decided here, not left to the platform's calendar: a time that does not exist
    /// (skipped by a jump forward: 02:30 on a spring-forward night) is read with the offset before the jump, so
    /// it moves forward by the gap (03:30), as calendars do; a time that happens twice (01:30 on a fall-back
    /// night) is its first occurrence.
    func instant(in identifier: String?) -> Date? {
        guard let identifier, let timeZone = TimeZone(identifier: identifier) else { return nil }
        let wall = asUTC
        // Offsets change at most once in a day anywhere, so the ones a day either side are the two candidates.
        let before = TimeInterval(timeZone.secondsFromGMT(for: wall.addingTimeInterval(-86_400)))
        let after = TimeInterval(timeZone.secondsFromGMT(for: wall.addingTimeInterval(86_400)))
        let valid = [before, after].map { wall.addingTimeInterval(-$0) }.filter { candidate in
            TimeInterval(timeZone.secondsFromGMT(for: candidate)) == wall.timeIntervalSince(candidate)
        }
        return valid.min() ?? wall.addingTimeInterval(-before)
    }
}
