import TidingsModel
import TidingsStore

/// Applies a destination's filter: which events pass, and which of their fields leave.
public enum ForwardingFilter {
    /// Whether `row` passes: its type among the filter's types and its campaign among its campaigns (each
    /// list, when empty, passes everything).
    public static func passes(_ row: ForwardingEventRow, _ filter: ForwarderRecord.Filter) -> Bool {
        if !filter.eventTypes.isEmpty && !filter.eventTypes.contains(row.type) { return false }
        if !filter.campaigns.isEmpty {
            guard let campaign = row.campaignID, filter.campaigns.contains(campaign) else { return false }
        }
        return true
    }

    /// The rows that pass, in order, each as the event that leaves: its wire JSON with `received_at`, without
    /// the dropped fields.
    public static func forwarded(_ rows: [ForwardingEventRow], _ filter: ForwarderRecord.Filter) -> [ForwardedEvent] {
        let dropped = filter.droppedFields
        if filter.eventTypes.isEmpty && filter.campaigns.isEmpty {
            return rows.map { ForwardedEvent(row: $0, droppedFields: dropped) }
        }
        return rows.compactMap { row in passes(row, filter) ? ForwardedEvent(row: row, droppedFields: dropped) : nil }
    }
}
