import Foundation
import Testing
import TidingsModel

@testable import TidingsCampaigns

/// Reading `HH:MM` and finding the next instant a zone's clock shows it.
@Suite struct JourneyWallClockTests {
    static func date(_ text: String) throws -> Date {
        try #require(ISO8601DateFormatter().date(from: text))
    }

    static func zone(_ identifier: String) throws -> TimeZone {
        try #require(TimeZone(identifier: identifier))
    }

    @Test func readsTwoDigitHoursAndMinutes() {
        #expect(JourneyWallClock("00:00") == JourneyWallClock(hour: 0, minute: 0))
        #expect(JourneyWallClock("09:05") == JourneyWallClock(hour: 9, minute: 5))
        #expect(JourneyWallClock("23:59") == JourneyWallClock(hour: 23, minute: 59))
    }

    @Test(arguments: ["24:00", "9:00", "09:5", "09:60", "0900", "09:00:00", "", ":", "ab:cd", "09 00", " 9:00"])
    func refusesAnythingElse(text: String) {
        #expect(JourneyWallClock(text) == nil)
    }

    /// `Int("+9")` is 9: a sign must not pass for a digit.
    @Test(arguments: ["+9:00", "-0:30", "09:+5", "+1:-0"])
    func refusesSigns(text: String) {
        #expect(JourneyWallClock(text) == nil)
    }

    @Test func writesTwoDigits() {
        #expect(JourneyWallClock(hour: 7, minute: 5).text == "07:05")
        #expect(JourneyWallClock(hour: 23, minute: 40).text == "23:40")
        for text in ["00:00", "09:05", "12:30", "23:59"] {
            #expect(JourneyWallClock(text)?.text == text)
        }
    }

    @Test func theNextShowingInUTC() throws {
        let nine = JourneyWallClock(hour: 9, minute: 0)
        #expect(try nine.next(after: Self.date("2026-12-06T08:59:59Z"), in: .gmt) == Self.date("2026-12-06T09:00:00Z"))
        #expect(try nine.next(after: Self.date("2026-12-06T09:00:00Z"), in: .gmt) == Self.date("2026-12-07T09:00:00Z"))
        // Across the end of a month and of a year.
        #expect(try nine.next(after: Self.date("2026-12-31T10:00:00Z"), in: .gmt) == Self.date("2027-01-01T09:00:00Z"))
        // Across a leap day.
        #expect(try nine.next(after: Self.date("2028-02-28T10:00:00Z"), in: .gmt) == Self.date("2028-02-29T09:00:00Z"))
    }

    @Test func theNextShowingInAZoneAheadAndBehind() throws {
        let nine = JourneyWallClock(hour: 9, minute: 0)
        // 2026-12-06 10:00 in Tokyo (UTC+9): tomorrow's 09:00 is 00:00 UTC.
        #expect(
            try nine.next(after: Self.date("2026-12-06T01:00:00Z"), in: Self.zone("Asia/Tokyo"))
                == Self.date("2026-12-07T00:00:00Z"))
        // 2026-12-06 04:00 in Los Angeles (UTC-8): today's 09:00 is 17:00 UTC.
        #expect(
            try nine.next(after: Self.date("2026-12-06T12:00:00Z"), in: Self.zone("America/Los_Angeles"))
                == Self.date("2026-12-06T17:00:00Z"))
        // Kathmandu is UTC+5:45.
        #expect(
            try nine.next(after: Self.date("2026-12-06T00:00:00Z"), in: Self.zone("Asia/Kathmandu"))
                == Self.date("2026-12-06T03:15:00Z"))
    }

    @Test func theNextShowingOnAWeekday() throws {
        // 2026-12-06 is a Sunday; Monday (2) 09:00 in Tokyo is Monday 00:00 UTC.
        let nine = JourneyWallClock(hour: 9, minute: 0)
        #expect(
            try nine.next(after: Self.date("2026-12-06T01:00:00Z"), in: Self.zone("Asia/Tokyo"), weekday: 2)
                == Self.date("2026-12-07T00:00:00Z"))
        // Sunday (1) 09:00 in Tokyo has passed at 10:00: a week later.
        #expect(
            try nine.next(after: Self.date("2026-12-06T01:00:00Z"), in: Self.zone("Asia/Tokyo"), weekday: 1)
                == Self.date("2026-12-13T00:00:00Z"))
    }

    @Test func daylightSavingJumps() throws {
        let newYork = try Self.zone("America/New_York")
        // 8 March 2026: 02:30 is skipped; the first instant after the jump is 03:00 EDT, 07:00 UTC.
        #expect(
            try JourneyWallClock(hour: 2, minute: 30).next(after: Self.date("2026-03-08T05:00:00Z"), in: newYork)
                == Self.date("2026-03-08T07:00:00Z"))
        // 1 November 2026: 01:30 shows twice; the first is 01:30 EDT, 05:30 UTC.
        #expect(
            try JourneyWallClock(hour: 1, minute: 30).next(after: Self.date("2026-11-01T04:00:00Z"), in: newYork)
                == Self.date("2026-11-01T05:30:00Z"))
        // 09:00 the day after a jump keeps its new offset.
        #expect(
            try JourneyWallClock(hour: 9, minute: 0).next(after: Self.date("2026-03-08T12:00:00Z"), in: newYork)
                == Self.date("2026-03-08T13:00:00Z"))
    }
}
