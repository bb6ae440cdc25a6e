import TidingsModel

/// What the server should know about this installation: tokens, user, consents, permission and device facts.
///
/// A plain value; ``InstallationRegistrar`` keeps the desired one, persists it and sends it when it changes.
/// `nil` means "not known"; it is sent as `null`, so the server's view always equals the last state sent.
public struct InstallationState: Sendable, Hashable {
    /// What the person agreed to receive; nil when the app has not asked.
    public struct Consents: Sendable, Hashable {
        /// Notification messages in general.
        public var notifications: Bool?
        /// Advertising messages.
        public var ads: Bool?
        /// Advertising between 21:00 and 08:00 local time (a separate consent in Japan and Korea).
        public var nightAds: Bool?

        public init(notifications: Bool? = nil, ads: Bool? = nil, nightAds: Bool? = nil) {
            self.notifications = notifications
            self.ads = ads
            self.nightAds = nightAds
        }
    }

    /// `ios` for this SDK.
    public var platform: String
    public var apnsToken: DeviceToken?
    public var voipToken: DeviceToken?
    public var fcmToken: DeviceToken?
    public var environment: APNsEnvironment?
    /// The logged-in user, or nil when logged out (the tokens stay).
    public var userID: String?
    public var consents: Consents
    public var permission: NotificationPermission?
    /// For example `ja_JP`.
    public var locale: String?
    /// The preferred language as a BCP 47 tag, for example `ja-JP`.
    public var language: String?
    /// A two-letter ISO 3166 code.
    public var country: String?
    /// An IANA time zone such as `Asia/Tokyo`.
    public var timezone: String?
    public var appVersion: String?
    /// `CFBundleVersion`.
    public var appBuild: String?
    public var sdkVersion: String?
    /// `iOS`, `iPadOS`, `macOS`, `Linux` ...
    public var osName: String?
    public var osVersion: String?
    /// For example `iPhone15,2`.
    public var deviceModel: String?
    /// The app's custom attributes, what message templates read as `{{attributes.NAME}}`
    /// (``InstallationRegistrar/setAttribute(_:_:)``).
    public var attributes: [String: AttributeValue]

    public init(
        platform: String = "ios", apnsToken: DeviceToken? = nil, voipToken: DeviceToken? = nil,
        fcmToken: DeviceToken? = nil, environment: APNsEnvironment? = nil, userID: String? = nil,
        consents: Consents = Consents(), permission: NotificationPermission? = nil, locale: String? = nil,
        country: String? = nil, timezone: String? = nil, appVersion: String? = nil, sdkVersion: String? = nil,
        osVersion: String? = nil, deviceModel: String? = nil, language: String? = nil, osName: String? = nil,
        appBuild: String? = nil, attributes: [String: AttributeValue] = [:]
    ) {
        self.attributes = attributes
        self.platform = platform
        self.apnsToken = apnsToken
        self.voipToken = voipToken
        self.fcmToken = fcmToken
        self.environment = environment
        self.userID = userID
        self.consents = consents
        self.permission = permission
        self.locale = locale
        self.country = country
        self.timezone = timezone
        self.appVersion = appVersion
        self.sdkVersion = sdkVersion
        self.osVersion = osVersion
        self.deviceModel = deviceModel
        self.language = language
        self.osName = osName
        self.appBuild = appBuild
    }

    /// The token of `type`.
    public func token(_ type: TokenType) -> DeviceToken? {
        switch type {
        case .apns: apnsToken
        case .voip: voipToken
        case .fcm: fcmToken
        }
    }

    /// Replaces the token of `type`.
    public mutating func setToken(_ token: DeviceToken?, for type: TokenType) {
        switch type {
        case .apns: apnsToken = token
        case .voip: voipToken = token
        case .fcm: fcmToken = token
        }
    }
}
