import TidingsModel
import TidingsStore

/// One forwarded event as a row of Treasure Data Engage's push-events table.
///
/// The columns TD's guide names, so its queries keep working: `time` (unix seconds, TD's time column),
/// `type` (`delivery`, `open`, `dismiss`, `link_open`, `deeplink_open`, `token_register`, and Tidings' other
/// types under their own names), `campaign_id`, `message_id`, `platform`, `user_id`, `value` (the URL or URI
/// of `link_open` and `deeplink_open`) and `fcm_token` (of an FCM `token_register`). Tidings adds `event_id`
/// (to de-duplicate), `installation_id`, `apns_token` for APNs registrations, and `received_at`.
/// Absent values are left out (TD stores null); dropped fields never appear.
public enum TreasureDataRow {
    /// The row for `event`; `dropped` are the filter's fields to leave out.
    public static func row(_ event: ForwardedEvent) -> [String: JSONValue] {
        let stored = event.row
        var row: [String: JSONValue] = [
            "time": .integer(stored.occurredAt / 1000),
            "type": .string(stored.type),
            "event_id": .string(stored.eventID),
            "installation_id": .string(stored.installationID),
            "platform": .string(stored.platform),
            "received_at": .integer(stored.receivedAt / 1000),
        ]
        func set(_ column: String, _ value: String?) {
            if let value { row[column] = .string(value) }
        }
        set("campaign_id", stored.campaignID)
        set("message_id", stored.messageID)
        set("user_id", stored.userID)
        set("value", stored.value)
        switch stored.tokenType.flatMap(TokenType.init(rawValue:)) {
        case .fcm?: set("fcm_token", stored.token)
        case .apns?, .voip?: set("apns_token", stored.token)
        case nil: break
        }
        // A field the filter drops leaves in no form: the wire name (`user_id`, `token`) covers its columns.
        for field in event.droppedFields {
            row[field] = nil
            if field == "token" {
                row["fcm_token"] = nil
                row["apns_token"] = nil
            }
        }
        return row
    }
}
