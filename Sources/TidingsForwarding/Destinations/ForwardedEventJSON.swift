import TidingsModel
import TidingsStore

/// Writes a forwarded event's JSON object straight from its stored row.
///
/// The output is byte for byte what serialising the event's wire JSON (with `received_at`) with sorted keys
/// gives, without building a dictionary per event, sorting its keys or parsing `attributes` back: members
/// come in the fixed order of their sorted keys, absent values and dropped fields are left out, and the
/// stored `attributes` text (compact, sorted) is copied as it is. Forwarding writes every event this way, so
/// the loop is hot.
enum ForwardedEventJSON {
    static func write(_ event: ForwardedEvent, into bytes: inout [UInt8]) {
        var writer = Writer(bytes: bytes, dropped: event.droppedFields)
        bytes = []  // Hand the storage over so appends do not copy it.
        let row = event.row
        writer.bytes.append(UInt8(ascii: "{"))
        writer.string("action_id", row.actionID)
        writer.string("app_state", row.appState)
        writer.string("app_version", row.appVersion)
        writer.attributes(row.attributesJSON)
        writer.string("campaign_id", row.campaignID)
        writer.string("device_model", row.deviceModel)
        writer.string("dialect", row.dialect)
        writer.string("environment", row.environment)
        writer.string("event_id", row.eventID)
        writer.string("installation_id", row.installationID)
        writer.string("message_id", row.messageID)
        writer.integer("occurred_at", row.occurredAt)
        writer.string("os_version", row.osVersion)
        writer.string("permission", row.permission)
        writer.string("platform", row.platform)
        writer.integer("received_at", row.receivedAt)
        writer.string("sdk_version", row.sdkVersion)
        writer.string("source", row.source)
        writer.string("token", row.token)
        writer.string("token_type", row.tokenType)
        writer.string("type", row.type)
        writer.string("user_id", row.userID)
        writer.string("value", row.value)
        writer.bytes.append(UInt8(ascii: "}"))
        bytes = writer.bytes
    }

    private struct Writer {
        var bytes: [UInt8]
        let dropped: [String]
        var first = true

        init(bytes: [UInt8], dropped: [String]) {
            self.bytes = bytes
            self.dropped = dropped
        }

        /// Writes `,"key":` (no comma before the first member); false when the filter drops the field.
        private mutating func key(_ key: StaticString) -> Bool {
            if !dropped.isEmpty {
                let name = key.description
                if dropped.contains(name) { return false }
            }
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            bytes.append(UInt8(ascii: "\""))
            key.withUTF8Buffer { bytes.append(contentsOf: $0) }
            bytes.append(UInt8(ascii: "\""))
            bytes.append(UInt8(ascii: ":"))
            return true
        }

        mutating func string(_ name: StaticString, _ value: String?) {
            guard let value, key(name) else { return }
            var text = value
            text.withUTF8 { utf8 in
                // Almost every value needs no escaping: copy it whole, and leave the rest to the shared writer.
                if utf8.allSatisfy({ $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
                    bytes.append(UInt8(ascii: "\""))
                    bytes.append(contentsOf: utf8)
                    bytes.append(UInt8(ascii: "\""))
                } else {
                    JSONText.writeString(value, into: &bytes)
                }
            }
        }

        mutating func integer(_ name: StaticString, _ value: Int64) {
            guard key(name) else { return }
            bytes.append(contentsOf: String(value).utf8)
        }

        /// The stored object text, copied; a value that is not an object (a row edited by hand) is left out,
        /// as parsing it would.
        mutating func attributes(_ json: String?) {
            guard let json, json.utf8.first == UInt8(ascii: "{"), json.utf8.last == UInt8(ascii: "}") else {
                return
            }
            guard key("attributes") else { return }
            bytes.append(contentsOf: json.utf8)
        }
    }
}
