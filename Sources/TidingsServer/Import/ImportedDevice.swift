import TidingsModel

/// One installation a profile makes of a row, before any check: the body a `PUT /v1/installations/{id}`
/// would send, and for each of its fields the file's column it came from.
struct ImportedDevice: Sendable {
    /// The vendor's id of the device, from which the installation's id is derived (``ImportRowMapper``); or,
    /// for the native profile, the installation's own id.
    var sourceID: String
    var sourceColumn: String
    var body: [String: JSONValue] = [:]
    /// Body field (`timezone`, `attributes.first_name`, `consents.ads`) to the file's column.
    var columns: [String: String] = [:]

    /// Sets `field` of the body to `value` from `column`; nothing when the value is absent.
    mutating func set(_ field: String, _ value: String?, from column: String) {
        guard let value else { return }
        body[field] = .string(value)
        columns[field] = column
    }

    mutating func setConsent(_ name: String, _ value: Bool?, from column: String) {
        guard let value else { return }
        var consents = body["consents"]?.objectValue ?? [:]
        consents[name] = .bool(value)
        body["consents"] = .object(consents)
        columns["consents.\(name)"] = column
    }

    mutating func setAttribute(_ key: String, _ value: JSONValue, from column: String) {
        var attributes = body["attributes"]?.objectValue ?? [:]
        attributes[key] = value
        body["attributes"] = .object(attributes)
        columns["attributes.\(key)"] = column
    }
}

extension ImportedDevice {
    /// Sets the token of a device the vendor says is `platform`: an iOS device's goes to APNs, an Android
    /// device's to FCM.
    /// - Throws: `unsupported_platform` for any other platform (web, email, SMS, other stores).
    mutating func setToken(_ token: String?, platform: String, tokenColumn: String, platformColumn: String)
        throws(ImportRowError)
    {
        switch platform.lowercased() {
        case "ios", "ipados", "apns", "0":
            set("platform", "ios", from: platformColumn)
            set("apns_token", token, from: tokenColumn)
        case "android", "fcm", "1":
            set("platform", "android", from: platformColumn)
            set("fcm_token", token, from: tokenColumn)
        default:
            throw ImportRowError(
                column: platformColumn, rule: "unsupported_platform",
                message:
                    "\(platformColumn) '\(platform.prefix(40))' is no iOS or Android device: Tidings sends through APNs and FCM only"
            )
        }
    }
}
