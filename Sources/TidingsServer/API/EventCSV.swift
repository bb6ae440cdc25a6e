import TidingsModel
import TidingsStore

/// Events as CSV (RFC 4180): a header line, then one line per event; `attributes` as JSON text.
///
/// Every text field comes from the devices (anyone with the app key), and a spreadsheet opening the file runs
/// a cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return as a formula (CSV injection). Such
/// text fields are neutralised with a leading `'`, which spreadsheets show as text and do not evaluate; the
/// two integer columns (`occurred_at`, `received_at`) are numbers and left as they are.
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
            text +=
                fields.enumerated().map { index, field in
                    let field = field ?? ""
                    return escape(numericColumns.contains(index) ? field : neutralised(field))
                }.joined(separator: ",") + "\r\n"
        }
        return text
    }

    /// The indexes of `occurred_at` and `received_at`, written by the server as integers.
    static let numericColumns: Set<Int> = [2, 3]

    /// `field` with a `'` in front when a spreadsheet would take it for a formula.
    static func neutralised(_ field: String) -> String {
        guard let first = field.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) else { return field }
        return "'" + field
    }

    /// Quotes a field that holds a comma, quote or line break, doubling its quotes.
    static func escape(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
