import TidingsModel

/// Braze's user export (`/users/export/segment`, one JSON object per user and line): `external_id`, the
/// profile's `language`, `country`, `time_zone`, `custom_attributes`, and `push_tokens`, each of which
/// becomes an installation.
struct BrazeImportProfile: ImportProfile {
    let name = "braze"
    let formats: Set<ImportFormat> = [.ndjson]

    func map(_ row: ImportSourceRow) throws(ImportRowError) -> ImportedRow {
        var imported = ImportedRow()
        imported.userID = row.text("external_id")
        imported.userColumn = "external_id"
        imported.attributesColumn = "custom_attributes"
        let attributes = try row.object("custom_attributes") ?? [:]
        guard case .array(let tokens)? = row.values["push_tokens"], !tokens.isEmpty else {
            throw ImportRowError(
                column: "push_tokens", rule: "no_push_token",
                message: "push_tokens is empty: the user has no device to import")
        }
        for (index, entry) in tokens.enumerated() {
            let column = "push_tokens[\(index)]"
            guard let object = entry.objectValue, let token = object["token"]?.stringValue, !token.isEmpty else {
                throw ImportRowError(
                    column: column, rule: "required", message: "\(column).token is required and is empty")
            }
            var device = ImportedDevice(sourceID: token, sourceColumn: "\(column).token")
            try device.setToken(
                token, platform: object["platform"]?.stringValue ?? "", tokenColumn: "\(column).token",
                platformColumn: "\(column).platform")
            if case .bool(let enabled)? = object["notifications_enabled"] {
                device.setConsent("notifications", enabled, from: "\(column).notifications_enabled")
            }
            device.set("user_id", imported.userID, from: "external_id")
            device.set("language", row.text("language"), from: "language")
            device.set("country", row.text("country"), from: "country")
            device.set("timezone", row.text("time_zone"), from: "time_zone")
            for (key, value) in attributes where value.isScalar {
                device.setAttribute(key, value, from: "custom_attributes")
            }
            imported.devices.append(device)
        }
        return imported
    }
}
