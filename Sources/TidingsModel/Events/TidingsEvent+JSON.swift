import Foundation

extension TidingsEvent {
    /// The wire names of the event's fields.
    enum Field {
        static let eventID = "event_id"
        static let type = "type"
        static let occurredAt = "occurred_at"
        static let installationID = "installation_id"
        static let platform = "platform"
        static let sdkVersion = "sdk_version"
        static let appVersion = "app_version"
        static let osVersion = "os_version"
        static let deviceModel = "device_model"
        static let userID = "user_id"
        static let messageID = "message_id"
        static let campaignID = "campaign_id"
        static let dialect = "dialect"
        static let source = "source"
        static let appState = "app_state"
        static let actionID = "action_id"
        static let value = "value"
        static let token = "token"
        static let tokenType = "token_type"
        static let environment = "environment"
        static let permission = "permission"
        static let attributes = "attributes"
        static let opensApp = "opens_app"
    }

    /// The event as its wire JSON object; absent optionals are left out.
    public var json: JSONValue {
        var object: [String: JSONValue] = [
            Field.eventID: .string(eventID.uuidString.lowercased()),
            Field.type: .string(type.rawValue),
            Field.occurredAt: .integer(occurredAt),
            Field.installationID: .string(installationID),
            Field.platform: .string(platform),
        ]
        func put(_ key: String, _ value: String?) {
            if let value { object[key] = .string(value) }
        }
        put(Field.sdkVersion, sdkVersion)
        put(Field.appVersion, appVersion)
        put(Field.osVersion, osVersion)
        put(Field.deviceModel, deviceModel)
        put(Field.userID, userID)
        put(Field.messageID, messageID)
        put(Field.campaignID, campaignID)
        put(Field.dialect, dialect)
        put(Field.source, source?.rawValue)
        put(Field.appState, appState?.rawValue)
        put(Field.actionID, actionID)
        put(Field.value, value)
        put(Field.token, token)
        put(Field.tokenType, tokenType?.rawValue)
        put(Field.environment, environment)
        put(Field.permission, permission)
        if let attributes { object[Field.attributes] = .object(attributes) }
        if let opensApp { object[Field.opensApp] = .bool(opensApp) }
        return .object(object)
    }

    /// Reads an event from its wire JSON object, checking each field's type.
    ///
    /// Unknown fields are ignored (a newer SDK may send more). Semantic rules (required fields per
    /// type, sizes) are checked separately by ``validate(now:limits:)``.
    /// - Throws: ``EventValidationError`` naming the first bad field.
    public init(json: JSONValue) throws(EventValidationError) {
        guard let object = json.objectValue else {
            throw EventValidationError(code: .notAnObject, field: nil, message: "an event must be a JSON object")
        }
        func string(_ key: String) throws(EventValidationError) -> String? {
            switch object[key] {
            case nil, .null?: return nil
            case .string(let value)?: return value
            default:
                throw EventValidationError(code: .wrongType, field: key, message: "\(key) must be a string")
            }
        }
        func required(_ key: String) throws(EventValidationError) -> String {
            guard let value = try string(key) else {
                throw EventValidationError(code: .missingField, field: key, message: "\(key) is required")
            }
            return value
        }
        func enumeration<Value: RawRepresentable<String>>(_ key: String, _: Value.Type) throws(EventValidationError)
            -> Value?
        {
            guard let raw = try string(key) else { return nil }
            guard let value = Value(rawValue: raw) else {
                throw EventValidationError(code: .invalidValue, field: key, message: "\(key) '\(raw)' is not known")
            }
            return value
        }

        let rawID = try required(Field.eventID)
        // The plain loop reads canonical ids; anything else gets Foundation's reading, quirks and all.
        guard let eventID = UUID(canonical: rawID) ?? UUID(uuidString: rawID) else {
            throw EventValidationError(
                code: .invalidValue, field: Field.eventID, message: "event_id '\(rawID)' is not a UUID")
        }
        let occurredAt: Int64
        switch object[Field.occurredAt] {
        case .integer(let milliseconds)?:
            occurredAt = milliseconds
        case .double(let milliseconds)? where milliseconds.rounded() == milliseconds && abs(milliseconds) < 1e15:
            occurredAt = Int64(milliseconds)
        case nil, .null?:
            throw EventValidationError(code: .missingField, field: Field.occurredAt, message: "occurred_at is required")
        default:
            throw EventValidationError(
                code: .wrongType, field: Field.occurredAt, message: "occurred_at must be integer milliseconds")
        }
        var attributes: [String: JSONValue]?
        switch object[Field.attributes] {
        case nil, .null?: attributes = nil
        case .object(let value)?: attributes = value
        default:
            throw EventValidationError(
                code: .wrongType, field: Field.attributes, message: "attributes must be an object")
        }
        var opensApp: Bool?
        switch object[Field.opensApp] {
        case nil, .null?: opensApp = nil
        case .bool(let value)?: opensApp = value
        default:
            throw EventValidationError(
                code: .wrongType, field: Field.opensApp, message: "opens_app must be true or false")
        }
        self.init(
            eventID: eventID, type: EventType(try required(Field.type)), occurredAt: occurredAt,
            installationID: try required(Field.installationID), platform: try string(Field.platform) ?? "ios",
            sdkVersion: try string(Field.sdkVersion), appVersion: try string(Field.appVersion),
            osVersion: try string(Field.osVersion), deviceModel: try string(Field.deviceModel),
            userID: try string(Field.userID), messageID: try string(Field.messageID),
            campaignID: try string(Field.campaignID), dialect: try string(Field.dialect),
            source: try enumeration(Field.source, EventSource.self),
            appState: try enumeration(Field.appState, AppState.self), actionID: try string(Field.actionID),
            value: try string(Field.value), token: try string(Field.token),
            tokenType: try enumeration(Field.tokenType, TokenType.self),
            environment: try string(Field.environment), permission: try string(Field.permission),
            attributes: attributes)
        self.opensApp = opensApp
    }
}

extension TidingsEvent: Codable {
    public init(from decoder: any Decoder) throws {
        try self.init(json: JSONValue(from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        try json.encode(to: encoder)
    }
}
