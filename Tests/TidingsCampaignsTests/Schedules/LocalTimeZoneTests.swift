import Foundation
import Testing

@testable import TidingsCampaigns

/// Where a local time falls in the zones that make it hard: daylight-saving gaps and overlaps, the zones at
/// either end of the day (UTC+14, UTC−12) and those a half or three quarters of an hour off the hour.
@Suite struct LocalTimeZoneTests {
    static func instant(_ local: String, _ zone: String) -> String? {
        LocalDateTime(local)?.instant(in: zone).map { ISO8601DateFormatter().string(from: $0) }
    }

    /// 02:30 does not exist on a spring-forward night: it moves forward by the gap, to 03:30 local.
    @Test func aTimeSkippedBySpringForwardMovesForwardByTheGap() {
        #expect(Self.instant("2027-03-14T02:30", "America/New_York") == "2027-03-14T07:30:00Z")
        #expect(Self.instant("2027-03-28T02:30", "Europe/Berlin") == "2027-03-28T01:30:00Z")
        // Lord Howe's gap is half an hour (02:00 becomes 02:30, UTC+10:30 becomes UTC+11).
        #expect(Self.instant("2027-10-03T02:15", "Australia/Lord_Howe") == "2027-10-02T15:45:00Z")
        // Either side of the gap is untouched.
        #expect(Self.instant("2027-03-14T01:59", "America/New_York") == "2027-03-14T06:59:00Z")
        #expect(Self.instant("2027-03-14T03:00", "America/New_York") == "2027-03-14T07:00:00Z")
    }

    /// 01:30 happens twice on a fall-back night: the first time, still on summer time.
    @Test func aTimeRepeatedByFallBackIsItsFirstOccurrence() {
        #expect(Self.instant("2027-11-07T01:30", "America/New_York") == "2027-11-07T05:30:00Z")
        #expect(Self.instant("2027-10-31T02:30", "Europe/Berlin") == "2027-10-31T00:30:00Z")
        // Lord Howe repeats half an hour (02:00 back to 01:30): 01:45 at UTC+11, not UTC+10:30.
        #expect(Self.instant("2027-04-04T01:45", "Australia/Lord_Howe") == "2027-04-03T14:45:00Z")
        #expect(Self.instant("2027-11-07T02:30", "America/New_York") == "2027-11-07T07:30:00Z")
    }

    @Test func theZonesAtEitherEndOfTheDayAndOffTheHour() {
        #expect(Self.instant("2027-01-15T09:00", "Pacific/Kiritimati") == "2027-01-14T19:00:00Z")
        #expect(Self.instant("2027-01-15T09:00", "Etc/GMT+12") == "2027-01-15T21:00:00Z")
        #expect(Self.instant("2027-01-15T09:00", "Asia/Kolkata") == "2027-01-15T03:30:00Z")
        #expect(Self.instant("2027-01-15T09:00", "Asia/Kathmandu") == "2027-01-15T03:15:00Z")
        #expect(Self.instant("2027-01-15T09:00", "Pacific/Chatham") == "2027-01-14T19:15:00Z")
        #expect(Self.instant("2027-01-15T09:00", "Australia/Lord_Howe") == "2027-01-14T22:00:00Z")
        #expect(Self.instant("2027-07-15T09:00", "Australia/Lord_Howe") == "2027-07-14T22:30:00Z")
        #expect(Self.instant("2027-01-15T09:00", "Mars/Olympus") == nil)
    }

    /// The extreme zones bound the span a local-time send covers: resolved an hour before UTC+14, done by UTC−12.
    @Test func resolutionAndTheLastDueTimeCoverEveryZone() {
        let time = LocalDateTime("2027-01-15T09:00")!
        let schedule = CampaignSchedule.localTime(time, fallbackTimeZone: nil, sendPast: false)
        let now = Date(timeIntervalSince1970: 0)
        let formatter = ISO8601DateFormatter()
        #expect(formatter.string(from: schedule.resolveAt(now: now)) == "2027-01-14T18:00:00Z")
        #expect(formatter.string(from: schedule.latestDue(now: now)) == "2027-01-15T21:00:00Z")
    }

    /// Each due instant is labelled with the offset whose wall clock reads the local time then; an instant no
    /// zone's clock read it at (sent at once under `if_past: send_now`) has none.
    @Test func theScheduleLabelsEachDueInstantWithItsOffset() {
        let time = LocalDateTime("2027-01-15T09:00")!
        let report = LocalScheduleReport(time: time, countsByDue: [:])
        func due(_ text: String) -> Int64 { ISO8601DateFormatter().date(from: text)!.millisecondsSince1970 }
        #expect(report.utcOffset(at: due("2027-01-14T19:00:00Z")) == "+14:00")
        #expect(report.utcOffset(at: due("2027-01-15T21:00:00Z")) == "-12:00")
        #expect(report.utcOffset(at: due("2027-01-15T03:15:00Z")) == "+05:45")
        #expect(report.utcOffset(at: due("2027-01-15T09:00:00Z")) == "+00:00")
        #expect(report.utcOffset(at: due("2027-01-15T14:00:00Z")) == "-05:00")
        #expect(report.utcOffset(at: due("2027-01-15T03:17:12Z")) == nil)
        #expect(report.utcOffset(at: due("2027-01-14T17:00:00Z")) == nil)
    }
}
