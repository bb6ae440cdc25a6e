import TidingsModel
import TidingsStore

/// Applies a destination's filter: which events pass, and which of their fields leave.
public enum ForwardingFilter {
    /// Whether `event` passes: its type among the filter's types and its campaign among its campaigns (each
    /// list, when empty, passes everything).
    public static func passes(_ event: StoredEvent, _ filter: ForwarderRecord.Filter) -> Bool {
        if !filter.eventTypes.isEmpty && !filter.eventTypes.contains(event.event.type.rawValue) { return false }
        if !filter.campaigns.isEmpty {
            guard let campaign = event.event.campaignID, filter.campaigns.contains(campaign) else { return false }
        }
        return true
    }

    /// The events that pass, in order, each as the object that leaves: the event's wire JSON with
    /// `received_at`, without the dropped fields.
    public static func forwarded(_ events: [StoredEvent], _ filter: ForwarderRecord.Filter) -> [ForwardedEvent] {
        events.compactMap { stored in
            guard passes(stored, filter) else { return nil }
            var fields = stored.event.json.objectValue ?? [:]
            fields["received_at"] = .integer(stored.receivedAt)
            for field in filter.droppedFields { fields[field] = nil }
            return ForwardedEvent(stored: stored, fields: fields, droppedFields: filter.droppedFields)
        }
    }
}
