/// Which installations a listing returns: by user, by the user's tag, and by device fields.
public struct InstallationQuery: Sendable, Hashable {
    /// A device field a listing can be filtered on; the raw value is its column.
    public enum Field: String, Sendable, Hashable, CaseIterable {
        case platform
        case environment
        case permission
        case language
        case locale
        case country
        case timezone
        case appVersion = "app_version"
        case appBuild = "app_build"
        case sdkVersion = "sdk_version"
        case osName = "os_name"
        case osVersion = "os_version"
        case deviceModel = "device_model"
    }

    public var userID: String?
    /// Installations whose user carries this tag.
    public var tag: String?
    /// Exact matches on device fields; a nil value matches installations where the field is unknown.
    public var fields: [Field: String?]
    /// Continue after this installation id.
    public var afterInstallationID: String?
    public var limit: Int

    public init(
        userID: String? = nil, tag: String? = nil, fields: [Field: String?] = [:], afterInstallationID: String? = nil,
        limit: Int = 100
    ) {
        self.userID = userID
        self.tag = tag
        self.fields = fields
        self.afterInstallationID = afterInstallationID
        self.limit = limit
    }
}
