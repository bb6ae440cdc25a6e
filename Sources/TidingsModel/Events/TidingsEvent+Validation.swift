extension TidingsEvent {
    /// Checks the rules every event must keep: a built-in or custom type, the fields its type requires, sizes and time.
    ///
    /// - Parameters:
    ///   - now: Milliseconds since 1970, for the age and clock-skew checks.
    ///   - serializedBytes: The size of the event's JSON, when the caller already has it.
    /// - Throws: ``EventValidationError`` for the first rule broken.
    public func validate(now: Int64, limits: EventLimits = .default, serializedBytes: Int? = nil)
        throws(EventValidationError)
    {
        guard type.isAccepted else {
            throw EventValidationError(
                code: .unknownType, field: Field.type,
                message: "event type '\(type.rawValue)' is not \(EventType.customNameRule)")
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
        // Field by field rather than through an array of pairs: every event of every batch is checked here.
        func checkLength(_ field: String, _ text: String?) throws(EventValidationError) {
            guard let text, text.utf8.count > limits.maximumFieldBytes else { return }
            throw EventValidationError(
                code: .fieldTooLong, field: field,
                message: "\(field) is \(text.utf8.count) bytes; the limit is \(limits.maximumFieldBytes) bytes")
        }
        try checkLength(Field.installationID, installationID)
        try checkLength(Field.platform, platform)
        try checkLength(Field.sdkVersion, sdkVersion)
        try checkLength(Field.appVersion, appVersion)
        try checkLength(Field.osVersion, osVersion)
        try checkLength(Field.deviceModel, deviceModel)
        try checkLength(Field.userID, userID)
        try checkLength(Field.messageID, messageID)
        try checkLength(Field.campaignID, campaignID)
        try checkLength(Field.dialect, dialect)
        try checkLength(Field.actionID, actionID)
        try checkLength(Field.value, value)
        try checkLength(Field.token, token)
        try checkLength(Field.environment, environment)
        try checkLength(Field.permission, permission)
        if let serializedBytes, serializedBytes > limits.maximumEventBytes {
            throw EventValidationError(
                code: .eventTooLarge, field: nil,
                message: "the event is \(serializedBytes) bytes; the limit is \(limits.maximumEventBytes) bytes")
        }
    }
}
