import Foundation

/// One analytics event, as stored on the device and sent to `POST /v1/events`.
///
/// The `eventID` is made once, at enqueue, and never changes across retries: the server de-duplicates
/// on it with no time window, and answers receipts keyed by it.
public struct TidingsEvent: Sendable, Hashable {
    public var eventID: UUID
    public var type: EventType
    /// Milliseconds since 1970.
    public var occurredAt: Int64
    public var installationID: String
    public var platform: String
    public var sdkVersion: String?
    public var appVersion: String?
    public var osVersion: String?
    public var deviceModel: String?
    public var userID: String?

    // Notification events.
    public var messageID: String?
    public var campaignID: String?
    /// Which payload dialect the notification was read as (`native`, `moengage`, ...).
    public var dialect: String?
    public var source: EventSource?
    public var appState: AppState?

    // Type-specific.
    /// The button for `action` and `reply`.
    public var actionID: String?
    /// For `action`: whether the button brought the app to the foreground (registered with iOS's foreground
    /// option); nil from SDKs that do not say, whose opens tidingsd infers from the message's buttons.
    public var opensApp: Bool?
    /// The URL for `link_open`/`deeplink_open`, the screen for `screen_open`, the code for `coupon_copy`.
    public var value: String?
    public var token: String?
    public var tokenType: TokenType?
    /// `sandbox` or `production`, for token events.
    public var environment: String?
    /// The notification permission, for token and permission events.
    public var permission: String?
    /// Free-form extras, size-capped (for example `reason` of `media_failed`, `count` of `events_dropped`).
    public var attributes: [String: JSONValue]?

    public init(
        eventID: UUID = .version7(), type: EventType, occurredAt: Int64, installationID: String,
        platform: String = "ios", sdkVersion: String? = nil, appVersion: String? = nil, osVersion: String? = nil,
        deviceModel: String? = nil, userID: String? = nil, messageID: String? = nil, campaignID: String? = nil,
        dialect: String? = nil, source: EventSource? = nil, appState: AppState? = nil, actionID: String? = nil,
        value: String? = nil, token: String? = nil, tokenType: TokenType? = nil, environment: String? = nil,
        permission: String? = nil, attributes: [String: JSONValue]? = nil
    ) {
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
        self.attributes = attributes
    }
}
