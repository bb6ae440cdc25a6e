import TidingsModel

/// Tidings' own columns: the members of `PUT /v1/installations/{id}` plus `installation_id` and `tags`. In
/// CSV, `consent_notifications`, `consent_ads` and `consent_night_ads` are the consents, `tags` is a list
/// separated by `;`, and `attributes.NAME` a string attribute (`attributes.NAME:number`, `:bool`, `:date`
/// type it).
struct NativeImportProfile: ImportProfile {
    let name = "native"
    let formats: Set<ImportFormat> = [.csv, .ndjson]
    var keepsInstallationIDs: Bool { true }

    static let fields = [
        "platform", "apns_token", "voip_token", "fcm_token", "environment", "user_id", "permission", "locale",
        "country", "timezone", "language", "app_version", "app_build", "sdk_version", "os_name", "os_version",
        "device_model",
    ]

    func map(_ row: ImportSourceRow) throws(ImportRowError) -> ImportedRow {
        var device = ImportedDevice(sourceID: try row.required("installation_id"), sourceColumn: "installation_id")
        for field in Self.fields + ["consents", "attributes"] {
            guard let value = row.values[field] else { continue }
            device.body[field] = value
            device.columns[field] = field
        }
        for (column, consent) in [
            ("consent_notifications", "notifications"), ("consent_ads", "ads"), ("consent_night_ads", "night_ads"),
        ] {
            device.setConsent(consent, try row.flag(column), from: column)
        }
        for (column, value) in row.values where column.hasPrefix("attributes.") {
            try setAttribute(column: column, value, on: &device)
        }
        var imported = ImportedRow(devices: [device])
        imported.userID = row.text("user_id")
        imported.tags = try row.list("tags") ?? []
        return imported
    }

    /// `attributes.NAME[:TYPE]` of a CSV file.
    private func setAttribute(column: String, _ value: JSONValue, on device: inout ImportedDevice)
        throws(ImportRowError)
    {
        let spec = column.dropFirst("attributes.".count)
        let parts = spec.split(separator: ":", maxSplits: 1)
        guard let key = parts.first.map(String.init), let text = value.stringValue else { return }
        let type = parts.count > 1 ? String(parts[1]) : "string"
        let typed: JSONValue
        switch type {
        case "string": typed = .string(text)
        case "number":
            guard let number = Double(text), number.isFinite else {
                throw ImportRowError(
                    column: column, rule: "invalid_attribute",
                    message: "\(column) must be a number, not '\(text.prefix(40))'")
            }
            typed = .double(number)
        case "bool":
            typed = .bool(try ImportSourceRow([column: value]).flag(column) ?? false)
        case "date": typed = .object(["date": .string(text)])
        default:
            throw ImportRowError(
                column: column, rule: "invalid_attribute_type",
                message: "\(column): the type after ':' must be string, number, bool or date")
        }
        device.setAttribute(key, typed, from: column)
    }
}
