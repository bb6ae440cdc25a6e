import TidingsModel

/// One app installation on one device, as stored: its push tokens, user, consents and device facts.
public struct Installation: Sendable, Hashable {
    /// What the person agreed to; nil when the app has not said.
    public struct Consents: Sendable, Hashable {
        public var notifications: Bool?
        public var ads: Bool?
        /// Advertising between 21:00 and 08:00 local time (required separately in Japan).
        public var nightAds: Bool?

        public init(notifications: Bool? = nil, ads: Bool? = nil, nightAds: Bool? = nil) {
            self.notifications = notifications
            self.ads = ads
            self.nightAds = nightAds
        }
    }

    public var appID: String
    public var installationID: String
    public var platform: String
    /// Lower-case hex.
    public var apnsToken: String?
    /// Lower-case hex.
    public var voipToken: String?
    public var fcmToken: String?
    /// `sandbox` or `production`.
    public var environment: String?
    /// Nil when nobody is logged in; the tokens stay (NHN semantics).
    public var userID: String?
    public var consents: Consents
    /// `authorized`, `provisional`, `ephemeral`, `denied` or `not_determined`.
    public var permission: String?
    public var locale: String?
    /// The region, an ISO 3166 two-letter code.
    public var country: String?
    /// An IANA time zone identifier.
    public var timezone: String?
    /// The person's preferred language, a BCP 47 tag (`ja-JP`).
    public var language: String?
    public var appVersion: String?
    /// `CFBundleVersion`.
    public var appBuild: String?
    public var sdkVersion: String?
    /// `iOS`, `iPadOS`, `macOS`...
    public var osName: String?
    public var osVersion: String?
    public var deviceModel: String?
    /// When the device last presented each of its tokens, unix milliseconds: what an APNs 410's timestamp
    /// is compared with (a token presented again after it is still good).
    public var tokenRegisteredAt: [TokenType: Int64]
    /// The SHA-256 digest of the secret the installation's app instance was given when it created it; nil
    /// until one is issued. Never leaves the server.
    public var secretDigest: [UInt8]?
    /// The app's custom attributes (`first_name`, `orders`...), what message templates read as
    /// `{{attributes.NAME}}`; at most ``AttributeLimits/maximumCount``.
    public var attributes: [String: AttributeValue]
    /// The attributes of the profile of the installation's user (`{{user.NAME}}` in templates). The store does
    /// not read them with the installation: the send path fills them for templated messages.
    public var userAttributes: [String: AttributeValue] = [:]
    /// Milliseconds since 1970.
    public var createdAt: Int64
    /// Milliseconds since 1970.
    public var updatedAt: Int64

    public init(
        appID: String, installationID: String, platform: String = "ios", apnsToken: String? = nil,
        voipToken: String? = nil, fcmToken: String? = nil, environment: String? = nil, userID: String? = nil,
        consents: Consents = Consents(), permission: String? = nil, locale: String? = nil, country: String? = nil,
        timezone: String? = nil, language: String? = nil, appVersion: String? = nil, appBuild: String? = nil,
        sdkVersion: String? = nil, osName: String? = nil, osVersion: String? = nil, deviceModel: String? = nil,
        tokenRegisteredAt: [TokenType: Int64] = [:], secretDigest: [UInt8]? = nil, createdAt: Int64,
        updatedAt: Int64, attributes: [String: AttributeValue] = [:]
    ) {
        self.attributes = attributes
        self.appID = appID
        self.installationID = installationID
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
        self.language = language
        self.appVersion = appVersion
        self.appBuild = appBuild
        self.sdkVersion = sdkVersion
        self.osName = osName
        self.osVersion = osVersion
        self.tokenRegisteredAt = tokenRegisteredAt
        self.secretDigest = secretDigest
        self.deviceModel = deviceModel
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The token of `kind`.
    public func token(_ kind: TokenType) -> String? {
        switch kind {
        case .apns: apnsToken
        case .voip: voipToken
        case .fcm: fcmToken
        }
    }
}
