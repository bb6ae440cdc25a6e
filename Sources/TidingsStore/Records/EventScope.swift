import TidingsModel

/// A column of `events` that is looked up by value (a device's timeline, a message's or a campaign's funnel), and
/// which both stores find through `event_ranges` instead of an index on `events`.
///
/// An index per column cost every event one more B-tree insert: without the three, SQLite spends about 45% less
/// CPU per event of a batch (BENCHMARKS.md), and PostgreSQL, whose pace on event ingest is its own B-tree
/// inserts, likewise. A range costs one row per value and batch instead: a batch's events take consecutive
/// `seq`s, so for each value among them one row `(first_seq, last_seq)` says where its events are, and a lookup
/// scans those spans of `events` by primary key (PostgreSQL: `events_app_seq`) and keeps the rows that match.
/// The ranges of one value never overlap (a batch writes at most one per value, and batches take disjoint spans
/// of `seq`), so a lookup through them meets each event once.
public enum EventScope: String, CaseIterable, Sendable {
    case installation
    case message
    case campaign

    /// The column of `events` that holds the value.
    public var column: String {
        switch self {
        case .installation: "installation_id"
        case .message: "message_id"
        case .campaign: "campaign_id"
        }
    }

    /// The distinct values of each scope among `events`, in order of first appearance: the ranges a batch writes.
    public static func values(of events: [TidingsEvent]) -> [(scope: EventScope, value: String)] {
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
