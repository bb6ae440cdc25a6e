import Foundation
import TidingsModel
import TidingsStore

/// What `GET /v1/messages/{message_id}` shows of a local-time message's schedule: one entry per due instant
/// (the zones whose wall clocks read the local time then), with how many deliveries wait, are sent or were
/// skipped or cancelled there, and the next due time that still has deliveries waiting.
public struct LocalScheduleReport {
    var time: LocalDateTime
    var countsByDue: [Int64: MessageCounts]

    public init(time: LocalDateTime, countsByDue: [Int64: MessageCounts]) {
        self.time = time
        self.countsByDue = countsByDue
    }

    var nextDueAt: Int64? {
        countsByDue.filter { $0.value.queued + $0.value.inFlight > 0 }.keys.min()
    }

    /// The UTC offset at which the local time falls at `due` (`+05:45`); nil for an instant no zone's wall clock
    /// read it at (deliveries sent at once under `if_past: send_now`).
    public func utcOffset(at due: Int64) -> String? {
        let milliseconds = time.asUTC.millisecondsSince1970 - due
        let minutes = milliseconds / 60_000
        guard milliseconds % 60_000 == 0, minutes % 15 == 0,
            (-CampaignSchedule.latestOffset...CampaignSchedule.earliestOffset).contains(TimeInterval(minutes * 60))
        else { return nil }
        return String(format: "%@%02d:%02d", minutes < 0 ? "-" : "+", abs(minutes) / 60, abs(minutes) % 60)
    }

    public var json: JSONValue {
        let zones = countsByDue.keys.sorted().map { due -> JSONValue in
            let counts = countsByDue[due] ?? MessageCounts()
            return [
                "due_at": .integer(due), "utc_offset": utcOffset(at: due).map(JSONValue.string) ?? .null,
                "waiting": .integer(Int64(counts.queued)), "in_flight": .integer(Int64(counts.inFlight)),
                "sent": .integer(Int64(counts.sent)), "failed": .integer(Int64(counts.failed)),
                "skipped": .integer(Int64(counts.skipped)), "cancelled": .integer(Int64(counts.cancelled)),
                "skipped_by_reason": .object(counts.skippedByReason.mapValues { .integer(Int64($0)) }),
            ]
        }
        return [
            "local_time": .string(time.description),
            "next_due_at": nextDueAt.map(JSONValue.integer) ?? .null,
            "waiting": .integer(Int64(countsByDue.values.reduce(0) { $0 + $1.queued })),
            "zones": .array(zones),
        ]
    }
}
