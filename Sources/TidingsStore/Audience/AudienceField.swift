/// What an audience expression can test about an installation.
///
/// The raw value is the name in the language. Each field has a ``Kind`` that decides which operators and
/// values it takes and how it compares.
public enum AudienceField: String, Sendable, Hashable, CaseIterable {
    case installationID = "installation_id"
    case userID = "user_id"
    /// One of the user's tags; an installation without a user has none.
    case tag
    /// The preferred language, a BCP 47 tag; `ja` matches `ja` and `ja-JP`.
    case language
    /// The ISO 3166 country code, compared without case.
    case region
    /// The IANA time zone identifier.
    case timeZone = "time_zone"
    case appVersion = "app_version"
    case osVersion = "os_version"
    /// `ios`, `android`...: what the SDK registered with, compared without case.
    case platform
    /// `apns` or `fcm`: the service an alert would go through (the APNs token wins when both are present).
    case pushRoute = "push_route"
    /// When the installation last registered or updated itself with the server.
    case lastSeen = "last_seen"
    /// When the installation first registered.
    case firstSeen = "first_seen"
    case consentNotifications = "consent.notifications"
    case consentAds = "consent.ads"
    case consentNightAds = "consent.night_ads"

    /// How a field's values are written and compared.
    public enum Kind: Sendable, Hashable {
        /// Exact text (ids, time zones).
        case text
        /// Text compared without case (region, platform, push route).
        case caseInsensitive
        /// A BCP 47 language range, matched by prefix on subtag boundaries.
        case language
        /// A set of tags: `=` is "has", `!=` is "has not".
        case tagSet
        /// Ordered as versions.
        case version
        /// A point in time: `30d ago` or `"2026-11-01"`.
        case time
        /// `true` or `false`.
        case boolean
    }

    public var kind: Kind {
        switch self {
        case .installationID, .userID, .timeZone: .text
        case .region, .platform, .pushRoute: .caseInsensitive
        case .tag: .tagSet
        case .language: .language
        case .appVersion, .osVersion: .version
        case .lastSeen, .firstSeen: .time
        case .consentNotifications, .consentAds, .consentNightAds: .boolean
        }
    }

    /// The operators the field accepts.
    public var operators: [AudienceCondition.Operator] {
        switch kind {
        case .text, .caseInsensitive, .language: [.equal, .notEqual, .isIn, .isNotIn, .isNull, .isNotNull]
        case .tagSet: [.equal, .notEqual, .isIn, .isNotIn]
        case .version:
            [.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual, .isIn, .isNotIn, .isNull, .isNotNull]
        case .time: [.less, .lessOrEqual, .greater, .greaterOrEqual]
        case .boolean: [.equal, .notEqual, .isNull, .isNotNull]
        }
    }

    /// Every field name, for the message that refuses an unknown one.
    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
