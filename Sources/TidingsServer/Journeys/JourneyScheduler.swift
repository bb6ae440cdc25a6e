import Foundation
import TidingsCampaigns
import TidingsModel
import TidingsStore

/// Enters people into journeys with a schedule trigger: every day (or week) at a wall-clock time in each
/// installation's own zone, everyone the trigger's audience matches then.
///
/// Each look finds the zones whose clocks showed the time within the last ``catchUp`` and reads only their
/// installations (`time_zone in (...)`, an indexed audience query), so a zone is read about once a day, not
/// every installation at every look. Entries are keyed by the local date and the person, so a look repeated by
/// a new leader enters nobody twice.
final class JourneyScheduler: Sendable {
    let store: any Store
    let clock: any TidingsClock
    let catalog: JourneyCatalog
    let logger: Logger
    /// How late a firing may still be made up (after a restart or a leader change).
    let catchUp: Duration
    /// Zones already read for a firing by this process, keyed `journey|zone|date`.
    private let fired = LockedBox<Set<String>>([])

    static let pageSize = 1000

    init(
        store: any Store, clock: any TidingsClock, catalog: JourneyCatalog, logger: Logger,
        catchUp: Duration = .seconds(3600)
    ) {
        self.store = store
        self.clock = clock
        self.catalog = catalog
        self.logger = logger
        self.catchUp = catchUp
    }

    /// Enters everyone due at this look; returns how many entered.
    @discardableResult
    func runDue() throws -> Int {
        var entered = 0
        for journey in try store.journeys(appID: nil)
        where journey.state == .active && journey.triggerKind == "schedule" {
            guard let definition = try catalog.definition(journeyID: journey.id, version: journey.version),
                case .schedule(let schedule) = definition.trigger
            else { continue }
            entered += try fire(journey, definition, schedule)
        }
        return entered
    }

    /// The local date (`2026-12-06`) of the firing at `instant` in `zone`.
    static func localDate(_ instant: Date, in zone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let day = calendar.dateComponents([.year, .month, .day], from: instant)
        return String(format: "%04d-%02d-%02d", day.year ?? 0, day.month ?? 0, day.day ?? 0)
    }

    /// The latest firing at or before `now` in `zone`, when it is recent enough to make up.
    func recentFiring(_ schedule: JourneySchedule, in zone: TimeZone, now: Date) -> Date? {
        let clockTime = JourneyWallClock(hour: schedule.hour, minute: schedule.minute)
        // The first firing within the catch-up window, stepped forward to the last one not after now.
        var firing = clockTime.next(
            after: now.addingTimeInterval(-catchUp.seconds - 1), in: zone, weekday: schedule.weekday)
        guard firing <= now else { return nil }
        while true {
            let next = clockTime.next(after: firing, in: zone, weekday: schedule.weekday)
            if next > now { break }
            firing = next
        }
        return now.timeIntervalSince(firing) <= catchUp.seconds ? firing : nil
    }

    func fire(_ journey: JourneyRecord, _ definition: JourneyDefinition, _ schedule: JourneySchedule) throws -> Int {
        let now = clock.now
        let fallback = definition.fallbackTimeZone.flatMap { TimeZone(identifier: $0) } ?? .gmt
        // Zones firing now, by local date; nil stands for installations with no zone, which use the fallback.
        var firing: [String: [String?]] = [:]
        for identifier in TimeZone.knownTimeZoneIdentifiers {
            guard let zone = TimeZone(identifier: identifier), let at = recentFiring(schedule, in: zone, now: now)
            else { continue }
            firing[Self.localDate(at, in: zone), default: []].append(identifier)
        }
        if let at = recentFiring(schedule, in: fallback, now: now) {
            firing[Self.localDate(at, in: fallback), default: []].append(nil)
        }
        var entered = 0
        for (date, zones) in firing {
            let fresh = fired.withLock { done in
                zones.filter { done.insert("\(journey.id)|\($0 ?? "")|\(date)").inserted }
            }
            guard !fresh.isEmpty else { continue }
            entered += try enter(journey, definition, schedule, zones: fresh, date: date, now: now)
        }
        return entered
    }

    func enter(
        _ journey: JourneyRecord, _ definition: JourneyDefinition, _ schedule: JourneySchedule, zones: [String?],
        date: String, now: Date
    ) throws -> Int {
        guard let first = definition.steps.first else { return 0 }
        var parts: [String] = []
        let named = zones.compactMap { $0 }
        if !named.isEmpty { parts.append("time_zone in (" + named.map { "\"\($0)\"" }.joined(separator: ", ") + ")") }
        if zones.contains(where: { $0 == nil }) { parts.append("time_zone is null") }
        var text = "(" + parts.joined(separator: " or ") + ")"
        if schedule.audience != "all" { text = "(\(schedule.audience)) and " + text }
        let expression = try AudienceExpression.parse(text)
        let milliseconds = now.millisecondsSince1970
        var entered = 0
        var after: String?
        while true {
            let page = try store.installations(
                appID: journey.appID, audience: expression, afterInstallationID: after, limit: Self.pageSize,
                now: milliseconds)
            for installation in page {
                let subject =
                    installation.userID.map { "user:" + $0 } ?? "installation:" + installation.installationID
                let run = JourneyRunRecord(
                    id: "jr_" + UUID().lowercasedString, journeyID: journey.id, appID: journey.appID,
                    version: journey.version, subject: subject, state: .ready, stepID: "", resumeStep: first.id,
                    dueAt: milliseconds, enteredAt: milliseconds, entryKey: "schedule:\(date):\(subject)")
                if try store.enterJourney(run, minimumGap: JourneyEngine.minimumGap(definition.entry)) == .entered {
                    entered += 1
                }
            }
            guard page.count == Self.pageSize, let last = page.last else { break }
            after = last.installationID
        }
        return entered
    }
}
