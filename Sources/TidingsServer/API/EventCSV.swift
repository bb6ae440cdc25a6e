import TidingsModel
import TidingsStore

/// Events as CSV (RFC 4180): a header line, then one line per event; `attributes` as JSON text.
enum EventCSV {
    static let columns = [
        "event_id", "type", "occurred_at", "received_at", "installation_id", "platform", "user_id", "message_id",
        "campaign_id", "dialect", "source", "app_state", "action_id", "value", "token", "token_type", "environment",
        "permission", "sdk_version", "app_version", "os_version", "device_model", "attributes",
    ]

    static func document(_ events: [StoredEvent]) -> String {
        var text = columns.joined(separator: ",") + "\r\n"
        for stored in events {
            let event = stored.event
            let fields: [String?] = [
                event.eventID.lowercasedString, event.type.rawValue, String(event.occurredAt),
                String(stored.receivedAt), event.installationID, event.platform, event.userID, event.messageID,
                event.campaignID, event.dialect, event.source?.rawValue, event.appState?.rawValue, event.actionID,
                event.value, event.token, event.tokenType?.rawValue, event.environment, event.permission,
                event.sdkVersion, event.appVersion, event.osVersion, event.deviceModel,
                event.attributes.map { JSONText.string(.object($0)) },
            ]
            text += fields.map { escape($0 ?? "") }.joined(separator: ",") + "\r\n"
        }
        return text
    }

    /// Quotes a field that holds a comma, quote or line break, doubling its quotes.
    static func escape(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
