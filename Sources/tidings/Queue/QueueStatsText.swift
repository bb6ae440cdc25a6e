import Foundation
import Tidings
import TidingsModel

/// The person-readable forms of `tidings queue stats` and `tidings queue dump`.
enum QueueStatsText {
    static func render(_ stats: EventStore.Stats, path: String) -> String {
        var rows: [(String, String)] = [
            ("store", path),
            ("schema version", "\(stats.schemaVersion)"),
            ("events", "\(stats.eventCount) (\(bytes(stats.totalBytes)))"),
            ("oldest", stats.oldestAgeMilliseconds.map { age($0) + " ago" } ?? "-"),
        ]
        for type in stats.countsByType.keys.sorted() {
            rows.append(("  " + type, "\(stats.countsByType[type]!)"))
        }
        if stats.dropped.isEmpty {
            rows.append(("dropped", "none"))
        }
        for reason in stats.dropped.keys.sorted() {
            let count = stats.dropped[reason]!
            rows.append(("dropped " + reason, "\(count.total) (\(count.unreported) not yet reported)"))
        }
        rows.append(("leases", "\(stats.activeLeases) active, \(stats.leasedEvents) events"))
        rows.append(("deliveries", "\(stats.rememberedDeliveries) remembered"))
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { $0.0.padding(toLength: width + 2, withPad: " ", startingAt: 0) + $0.1 }
            .joined(separator: "\n") + "\n"
    }

    static func renderEvents(_ events: [QueuedEvent]) -> String {
        guard !events.isEmpty else { return "no events\n" }
        let typeWidth = max(4, events.map(\.type.rawValue.count).max() ?? 0)
        var lines = [
            "SEQ".padding(toLength: 8, withPad: " ", startingAt: 0) + "  "
                + "TYPE".padding(toLength: typeWidth, withPad: " ", startingAt: 0)
                + "  OCCURRED_AT               EVENT_ID"
        ]
        for event in events {
            let sequence = String(event.sequence)
            let occurred = Date(millisecondsSince1970: event.occurredAt).ISO8601Format(
                .iso8601.year().month().day().time(includingFractionalSeconds: true))
            lines.append(
                String(repeating: " ", count: max(0, 8 - sequence.count)) + sequence + "  "
                    + event.type.rawValue.padding(toLength: typeWidth, withPad: " ", startingAt: 0) + "  "
                    + occurred.padding(toLength: 24, withPad: " ", startingAt: 0) + "  "
                    + event.eventID.uuidString.lowercased())
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func bytes(_ count: Int) -> String {
        if count < 1024 { return "\(count) B" }
        if count < 1024 * 1024 { return String(format: "%.1f KB", Double(count) / 1024) }
        return String(format: "%.1f MB", Double(count) / 1024 / 1024)
    }

    static func age(_ milliseconds: Int64) -> String {
        let seconds = milliseconds / 1000
        if seconds < 60 { return "\(seconds)s" }
        if seconds < 3600 { return "\(seconds / 60)m \(seconds % 60)s" }
        if seconds < 86400 { return "\(seconds / 3600)h \(seconds % 3600 / 60)m" }
        return "\(seconds / 86400)d \(seconds % 86400 / 3600)h"
    }
}
