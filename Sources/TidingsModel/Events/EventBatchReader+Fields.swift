import Foundation

extension EventBatchReader {
    /// The members of an event object the reader knows, by their place in `TidingsEvent.Field`.
    enum EventField: Int, CaseIterable {
        case eventID, type, occurredAt, installationID, platform, sdkVersion, appVersion, osVersion, deviceModel
        case userID, messageID, campaignID, dialect, source, appState, actionID, value, token, tokenType
        case environment, permission, attributes, opensApp

        /// The wire name.
        var name: String {
            typealias Field = TidingsEvent.Field
            switch self {
            case .eventID: return Field.eventID
            case .type: return Field.type
            case .occurredAt: return Field.occurredAt
            case .installationID: return Field.installationID
            case .platform: return Field.platform
            case .sdkVersion: return Field.sdkVersion
            case .appVersion: return Field.appVersion
            case .osVersion: return Field.osVersion
            case .deviceModel: return Field.deviceModel
            case .userID: return Field.userID
            case .messageID: return Field.messageID
            case .campaignID: return Field.campaignID
            case .dialect: return Field.dialect
            case .source: return Field.source
            case .appState: return Field.appState
            case .actionID: return Field.actionID
            case .value: return Field.value
            case .token: return Field.token
            case .tokenType: return Field.tokenType
            case .environment: return Field.environment
            case .permission: return Field.permission
            case .attributes: return Field.attributes
            case .opensApp: return Field.opensApp
            }
        }

        /// Each field's name as bytes, indexed by `rawValue`, compared against keys without making a string.
        private static let names: [[UInt8]] = allCases.map { Array($0.name.utf8) }

        /// The length of the wire name in bytes (`name.count` would walk it as characters).
        var nameByteCount: Int { Self.names[rawValue].count }

        /// The field whose name is the `count` bytes at `bytes`.
        static func named(_ bytes: UnsafePointer<UInt8>, count: Int) -> EventField? {
            for (index, name) in names.enumerated() where name.count == count {
                let equal = name.withUnsafeBufferPointer { memcmp($0.baseAddress!, bytes, count) == 0 }
                if equal { return EventField(rawValue: index) }
            }
            return nil
        }
    }

    /// What an event object's members said, before it is checked to be a plain event.
    struct EventFields {
        /// The text fields' values, indexed by `EventField.rawValue` (`occurred_at`, `attributes` and
        /// `opens_app` unused).
        var strings = [String?](repeating: nil, count: EventField.allCases.count)
        var occurredAt: Int64?
        var attributes: [String: JSONValue]?
        var opensApp: Bool?

        private func string(_ field: EventField) -> String? { strings[field.rawValue] }

        /// The event, read as `TidingsEvent(json:)` reads it, or `nil` wherever that would refuse it (a
        /// missing required field, an id or an enumeration value that does not read), so that reading can
        /// name the error.
        func element(serializedBytes: Int) -> Element? {
            guard let rawID = string(.eventID), let occurredAt, let type = string(.type),
                let installationID = string(.installationID),
                let eventID = UUID(canonical: rawID) ?? UUID(uuidString: rawID)
            else { return nil }
            func enumeration<Value: RawRepresentable<String>>(_ field: EventField, _: Value.Type) -> Value?? {
                guard let raw = string(field) else { return .some(nil) }
                return Value(rawValue: raw).map { .some($0) }
            }
            guard let source = enumeration(.source, EventSource.self),
                let appState = enumeration(.appState, AppState.self),
                let tokenType = enumeration(.tokenType, TokenType.self)
            else { return nil }
            var event = TidingsEvent(
                eventID: eventID, type: EventType(type), occurredAt: occurredAt, installationID: installationID,
                platform: string(.platform) ?? "ios", sdkVersion: string(.sdkVersion),
                appVersion: string(.appVersion), osVersion: string(.osVersion), deviceModel: string(.deviceModel),
                userID: string(.userID), messageID: string(.messageID), campaignID: string(.campaignID),
                dialect: string(.dialect), source: source, appState: appState, actionID: string(.actionID),
                value: string(.value), token: string(.token), tokenType: tokenType,
                environment: string(.environment), permission: string(.permission), attributes: attributes)
            event.opensApp = opensApp
            return .event(event, rawEventID: rawID, serializedBytes: serializedBytes)
        }
    }
}
