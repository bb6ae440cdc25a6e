import Foundation
import TidingsModel
import TidingsTesting

/// The demo's local-time message: a one-hour flash sale at the same wall-clock time in each device's own zone,
/// half an hour ahead where that time comes first. The run shows its schedule as tidingsd planned it (one due instant per zone, each with its own
/// expiry an hour later), then cancels it, and checks that nothing is left waiting (docs/campaigns.md, "Local
/// time").
struct DemoLocalTime {
    static let campaignID = "demo-flash-sale"
    static let ttlSeconds: Int64 = 3600

    /// One due instant of the schedule.
    struct Zone {
        var dueAt: Int64
        var utcOffset: String
        var waiting: Int
    }

    var messageID = ""
    var localTime = ""
    var zones: [Zone] = []
    /// Deliveries waiting in all, before the cancel.
    var waiting = 0
    /// `GET /v1/messages/{id}` counts after the cancel.
    var afterCancel: JSONValue = .null
    var failure: String?

    var succeeded: Bool { failure == nil }

    /// Sends, reads back the schedule, cancels; `targets` is how many installations the fleet has.
    static func run(driver: CampaignDriver, targets: Int, now: Date = Date()) async -> DemoLocalTime {
        var outcome = DemoLocalTime()
        // Half an hour from now on the first clock to reach it (UTC+14): tidingsd resolves a local-time audience
        // an hour before that, so the schedule is planned at once, and every zone's due time is still ahead.
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "Pacific/Kiritimati")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm"
        outcome.localTime = formatter.string(from: now.addingTimeInterval(30 * 60))
        let body: JSONValue = [
            "target": ["all": true], "campaign_id": .string(campaignID), "local_time": .string(outcome.localTime),
            "ttl": .integer(ttlSeconds),
            "content": ["title": "Flash sale, one hour only", "body": "For one hour from now: 30% off everything."],
        ]
        do throws(DeviceFleetError) {
            let (messageID, _) = try await driver.send(body)
            outcome.messageID = messageID
            // The audience is resolved in the background when it is larger than the first chunk.
            let schedule =
                try await driver.waitForMessage(messageID, timeout: .seconds(30)) { message in
                    let planned = message["local_schedule"]?["waiting"]?.integerValue ?? 0
                    return planned == Int64(targets)
                        ? nil : "\(planned) of \(targets) deliveries of the local-time message have a due time"
                }["local_schedule"] ?? .null
            outcome.zones = (schedule["zones"]?.arrayValue ?? []).map { zone in
                Zone(
                    dueAt: zone["due_at"]?.integerValue ?? 0, utcOffset: zone["utc_offset"]?.stringValue ?? "?",
                    waiting: Int(zone["waiting"]?.integerValue ?? 0))
            }
            outcome.waiting = Int(schedule["waiting"]?.integerValue ?? 0)
            let cancelled = try await driver.cancel(messageID)
            outcome.afterCancel = cancelled["counts"] ?? .null
            let after = try await driver.message(messageID)["local_schedule"] ?? .null
            let left = after["waiting"]?.integerValue ?? -1
            let cancelledInZones = (after["zones"]?.arrayValue ?? []).reduce(0) {
                $0 + ($1["cancelled"]?.integerValue ?? 0)
            }
            if left != 0 {
                outcome.failure = "after the cancel \(left) deliveries still wait"
            } else if cancelledInZones != Int64(outcome.waiting) {
                outcome.failure = "the zones count \(cancelledInZones) cancelled of \(outcome.waiting) that waited"
            }
        } catch {
            outcome.failure = error.description
        }
        return outcome
    }

    func text() -> [String] {
        var lines = [
            "A local-time message (\(messageID)): \"flash sale\" at \(localTime) in each device's zone, "
                + "time to live 1 hour from its own due time:"
        ]
        lines.append("  DUE                       OFFSET  WAITING  EXPIRES")
        for zone in zones {
            let due = DisplayText.timestamp(zone.dueAt)
            let expires = DisplayText.timestamp(zone.dueAt + Self.ttlSeconds * 1000)
            let waiting = String(zone.waiting)
            lines.append(
                "  \(due)  \(zone.utcOffset.padding(toLength: 6, withPad: " ", startingAt: 0))"
                    + String(repeating: " ", count: max(0, 9 - waiting.count)) + waiting + "  \(expires)")
        }
        if let failure {
            lines.append("  FAILED: \(failure)")
        } else {
            let cancelled = afterCancel["cancelled"]?.integerValue ?? 0
            let sent = afterCancel["sent"]?.integerValue ?? 0
            lines.append(
                "  cancelled before the first zone's due time: \(waiting) waiting → 0 (\(cancelled) cancelled, "
                    + "\(sent) sent)")
        }
        return lines
    }

    var json: JSONValue {
        [
            "message_id": .string(messageID), "local_time": .string(localTime),
            "ttl_seconds": .integer(Self.ttlSeconds), "waiting_before_cancel": .integer(Int64(waiting)),
            "zones": .array(
                zones.map {
                    [
                        "due_at": .integer($0.dueAt), "utc_offset": .string($0.utcOffset),
                        "waiting": .integer(Int64($0.waiting)),
                    ]
                }),
            "counts_after_cancel": afterCancel, "succeeded": .bool(succeeded),
            "failure": failure.map(JSONValue.string) ?? .null,
        ]
    }
}
