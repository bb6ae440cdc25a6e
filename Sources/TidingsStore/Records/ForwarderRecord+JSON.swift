import Foundation
import TidingsModel

extension ForwarderRecord.Filter {
    /// The filter as both backends store it: `{"event_types": [...], "campaigns": [...], "drop_fields": [...]}`.
    package var storedText: String {
        JSONText.string([
            "event_types": .array(eventTypes.map(JSONValue.string)),
            "campaigns": .array(campaigns.map(JSONValue.string)),
            "drop_fields": .array(droppedFields.map(JSONValue.string)),
        ])
    }

    /// Reads ``storedText``; what does not parse reads as no filter.
    package init(storedText: String) {
        let object = (try? JSONText.parse(Data(storedText.utf8)))?.objectValue ?? [:]
        func strings(_ key: String) -> [String] { object[key]?.arrayValue?.compactMap(\.stringValue) ?? [] }
        self.init(
            eventTypes: strings("event_types"), campaigns: strings("campaigns"), droppedFields: strings("drop_fields"))
    }
}

extension ForwarderRecord {
    /// The settings as both backends store them.
    package static func storedText(settings: [String: JSONValue]) -> String { JSONText.string(.object(settings)) }

    package static func settings(storedText: String) -> [String: JSONValue] {
        (try? JSONText.parse(Data(storedText.utf8)))?.objectValue ?? [:]
    }
}
