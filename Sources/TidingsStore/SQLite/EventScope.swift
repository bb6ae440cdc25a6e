import TidingsModel

/// A column of `events` that is looked up by value (a device's timeline, a message's or a campaign's funnel), and
/// which the SQLite store finds through `event_ranges` instead of an index on `events`.
///
/// An index per column cost every event one more B-tree insert on the single writer: without the three, SQLite
/// spends about 45% less CPU per event of a batch (BENCHMARKS.md). A range costs one row per value and
/// batch instead: a batch's events take consecutive `seq`s, so for each value among them one row
/// `(first_seq, last_seq)` says where its events are, and a lookup scans those spans of `events` by primary
/// key and keeps the rows that match. The ranges of one value never overlap (a batch writes at most one per
/// value, and batches take disjoint spans of `seq`), so a lookup through them meets each event once.
enum EventScope: String, CaseIterable, Sendable {
    case installation
    case message
    case campaign

    /// The column of `events` that holds the value.
    var column: String {
        switch self {
        case .installation: "installation_id"
        case .message: "message_id"
        case .campaign: "campaign_id"
        }
    }

    /// The events of the app in parameter `app` whose column is the value in parameter `value`, as the `FROM`
    /// and the start of the `WHERE` of a query, with `joining` (more tables) after `e`.
    ///
    /// `events` is `e`, the ranges `r`. The ranges drive the join (`CROSS JOIN` keeps SQLite from reordering
    /// it), and each is read as a span of `events`' primary key: the `+` keeps SQLite from reading the app's
    /// rows through `events_event_id` instead. A query ordered by `r.first_seq, e.seq` thus reads in `seq`
    /// order and stops at its `LIMIT`.
    func rows(app: String, value: String, joining: String = "") -> String {
        """
        FROM event_ranges r CROSS JOIN events e ON e.seq BETWEEN r.first_seq AND r.last_seq \(joining)
        WHERE r.app_id = \(app) AND r.scope = '\(rawValue)' AND r.scope_id = \(value)
            AND +e.app_id = \(app) AND e.\(column) = \(value)
        """
    }

    /// The distinct values of each scope among `events`, in order of first appearance: the ranges a batch writes.
    static func values(of events: [TidingsEvent]) -> [(scope: EventScope, value: String)] {
        var installations = Set<String>()
        var messages = Set<String>()
        var campaigns = Set<String>()
        var values: [(scope: EventScope, value: String)] = []
        for event in events {
            if installations.insert(event.installationID).inserted {
                values.append((.installation, event.installationID))
            }
            if let id = event.messageID, messages.insert(id).inserted { values.append((.message, id)) }
            if let id = event.campaignID, campaigns.insert(id).inserted { values.append((.campaign, id)) }
        }
        return values
    }
}
