extension TidingsEvent {
    /// Checks the rules every event must keep: known type, the fields its type requires, sizes and time.
    ///
    /// - Parameters:
    ///   - now: Milliseconds since 1970, for the age and clock-skew checks.
    ///   - serializedBytes: The size of the event's JSON, when the caller already has it.
    /// - Throws: ``EventValidationError`` for the first rule broken.
    public func validate(now: Int64, limits: EventLimits = .default, serializedBytes: Int? = nil)
        throws(EventValidationError)
    {
        guard EventType.known.contains(type) else {
            throw EventValidationError(
                code: .unknownType, field: Field.type, message: "event type '\(type.rawValue)' is not known")
        }
        if installationID.isEmpty {
            throw EventValidationError(
                code: .missingField, field: Field.installationID, message: "installation_id must not be empty")
        }
        if type.isNotificationEvent, messageID?.isEmpty ?? true {
            throw EventValidationError(
                code: .missingField, field: Field.messageID, message: "\(type.rawValue) events need a message_id")
        }
        if type == .action || type == .reply, actionID?.isEmpty ?? true {
            throw EventValidationError(
                code: .missingField, field: Field.actionID, message: "\(type.rawValue) events need an action_id")
        }
        if type.isTokenEvent {
            if token?.isEmpty ?? true {
                throw EventValidationError(
                    code: .missingField, field: Field.token, message: "\(type.rawValue) events need a token")
            }
            if tokenType == nil {
                throw EventValidationError(
                    code: .missingField, field: Field.tokenType, message: "\(type.rawValue) events need a token_type")
            }
        }
        if occurredAt <= 0 || occurredAt > now + limits.maximumFutureSkewMilliseconds {
            throw EventValidationError(
                code: .timestampOutOfRange, field: Field.occurredAt,
                message: "occurred_at \(occurredAt) is not within the accepted range (up to 24 h ahead of server time)")
        }
        let strings: [(String, String?)] = [
            (Field.installationID, installationID), (Field.platform, platform), (Field.sdkVersion, sdkVersion),
            (Field.appVersion, appVersion), (Field.osVersion, osVersion), (Field.deviceModel, deviceModel),
            (Field.userID, userID), (Field.messageID, messageID), (Field.campaignID, campaignID),
            (Field.dialect, dialect), (Field.actionID, actionID), (Field.value, value), (Field.token, token),
            (Field.environment, environment), (Field.permission, permission),
        ]
        for (field, text) in strings where (text?.utf8.count ?? 0) > limits.maximumFieldBytes {
            throw EventValidationError(
                code: .fieldTooLong, field: field,
                message: "\(field) is \(text!.utf8.count) bytes; the limit is \(limits.maximumFieldBytes) bytes")
        }
        if let serializedBytes, serializedBytes > limits.maximumEventBytes {
            throw EventValidationError(
                code: .eventTooLarge, field: nil,
                message: "the event is \(serializedBytes) bytes; the limit is \(limits.maximumEventBytes) bytes")
        }
    }
}
