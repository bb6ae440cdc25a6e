import TidingsModel

/// One stored event as its columns, read for forwarding without decoding it into a ``StoredEvent``.
///
/// Forwarding writes each event's JSON straight from these strings: the event id is the lowercased text the
/// store keeps, the enums stay their wire strings, and `attributes` stays the compact JSON object text it was
/// stored as, so nothing is parsed and written again on the way out.
public struct ForwardingEventRow: Sendable, Hashable {
    /// The event's sequence number: pages and cursors are ordered by it.
    public var sequence: Int64
    /// When the server accepted it, in milliseconds since 1970.
    public var receivedAt: Int64
    /// The event id, lowercased: receivers' idempotency key.
    public var eventID: String
    public var type: String
    public var occurredAt: Int64
    public var installationID: String
    public var platform: String
    public var sdkVersion: String?
    public var appVersion: String?
    public var osVersion: String?
    public var deviceModel: String?
    public var userID: String?
    public var messageID: String?
    public var campaignID: String?
    public var dialect: String?
    public var source: String?
    public var appState: String?
    public var actionID: String?
    public var value: String?
    public var token: String?
    public var tokenType: String?
    public var environment: String?
    public var permission: String?
    /// `attributes` as stored: a compact JSON object, keys sorted.
    public var attributesJSON: String?

    public init(
        sequence: Int64, receivedAt: Int64, eventID: String, type: String, occurredAt: Int64, installationID: String,
        platform: String, sdkVersion: String? = nil, appVersion: String? = nil, osVersion: String? = nil,
        deviceModel: String? = nil, userID: String? = nil, messageID: String? = nil, campaignID: String? = nil,
        dialect: String? = nil, source: String? = nil, appState: String? = nil, actionID: String? = nil,
        value: String? = nil, token: String? = nil, tokenType: String? = nil, environment: String? = nil,
        permission: String? = nil, attributesJSON: String? = nil
    ) {
        self.sequence = sequence
        self.receivedAt = receivedAt
        self.eventID = eventID
        self.type = type
        self.occurredAt = occurredAt
        self.installationID = installationID
        self.platform = platform
        self.sdkVersion = sdkVersion
        self.appVersion = appVersion
        self.osVersion = osVersion
        self.deviceModel = deviceModel
        self.userID = userID
        self.messageID = messageID
        self.campaignID = campaignID
        self.dialect = dialect
        self.source = source
        self.appState = appState
        self.actionID = actionID
        self.value = value
        self.token = token
        self.tokenType = tokenType
        self.environment = environment
        self.permission = permission
        self.attributesJSON = attributesJSON
    }

    /// The row the store keeps for `stored`: the same strings ``SQLiteStore`` and `PostgresStore` write.
    public init(_ stored: StoredEvent) {
        let event = stored.event
        self.init(
            sequence: stored.sequence, receivedAt: stored.receivedAt, eventID: event.eventID.lowercasedString,
            type: event.type.rawValue, occurredAt: event.occurredAt, installationID: event.installationID,
            platform: event.platform, sdkVersion: event.sdkVersion, appVersion: event.appVersion,
            osVersion: event.osVersion, deviceModel: event.deviceModel, userID: event.userID,
            messageID: event.messageID, campaignID: event.campaignID, dialect: event.dialect,
            source: event.source?.rawValue, appState: event.appState?.rawValue, actionID: event.actionID,
            value: event.value, token: event.token, tokenType: event.tokenType?.rawValue,
            environment: event.environment, permission: event.permission,
            attributesJSON: event.attributes.map { JSONText.string(.object($0)) })
    }
}
