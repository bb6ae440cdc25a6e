import Foundation
import TidingsModel

/// A local-time message's schedule (`local_schedule` of `GET /v1/messages/{id}`) for people: the next due time
/// and one row per due instant with its UTC offset and what waits, went out or was skipped there.
///
/// ```
/// Local time  2027-01-15T09:00
/// Next due    2027-01-14T19:00:00.000Z
///
/// DUE                       OFFSET  WAITING  SENT  FAILED  SKIPPED  CANCELLED
/// 2027-01-14T19:00:00.000Z  +14:00        1     0       0        0          0
/// ```
enum LocalScheduleText {
    /// Nothing when the message has no local schedule.
    static func render(_ schedule: JSONValue?) -> String {
        guard let schedule, schedule.objectValue != nil else { return "" }
        var header = TwoColumnText()
        if let time = schedule["local_time"]?.stringValue { header.row("Local time", time) }
        if case .integer(let next)? = schedule["next_due_at"] {
            header.row("Next due", DisplayText.timestamp(next))
        } else {
            header.row("Next due", "none waiting")
        }
        var table = ColumnText([
            ("DUE", .left), ("OFFSET", .right), ("WAITING", .right), ("SENT", .right), ("FAILED", .right),
            ("SKIPPED", .right), ("CANCELLED", .right),
        ])
        for zone in schedule["zones"]?.arrayValue ?? [] {
            let due: String = if case .integer(let at)? = zone["due_at"] { DisplayText.timestamp(at) } else { "" }
            let waiting: Int64 =
                switch (zone["waiting"], zone["in_flight"]) {
                case (.integer(let queued)?, .integer(let inFlight)?): queued + inFlight
                case (.integer(let queued)?, _): queued
                default: 0
                }
            table.row([
                due, zone["utc_offset"]?.stringValue ?? "-", String(waiting), FunnelText.number(zone["sent"]),
                FunnelText.number(zone["failed"]), FunnelText.number(zone["skipped"]),
                FunnelText.number(zone["cancelled"]),
            ])
        }
        return "\n" + header.render() + "\n" + table.render()
    }
}
