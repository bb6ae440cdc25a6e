import TidingsModel

/// OneSignal's "Export subscriptions CSV" (`/players/csv_export`), with the extra fields `external_user_id`,
/// `country` and `timezone_id` asked for: one row per subscription.
struct OneSignalImportProfile: ImportProfile {
    let name = "onesignal"
    let formats: Set<ImportFormat> = [.csv]

    func map(_ row: ImportSourceRow) throws(ImportRowError) -> ImportedRow {
        var device = ImportedDevice(sourceID: try row.required("id"), sourceColumn: "id")
        // OneSignal keeps a token it found invalid, marked; Tidings keeps the device without it.
        let invalid = try row.flag("invalid_identifier") ?? false
        try device.setToken(
            invalid ? nil : row.text("identifier"), platform: try row.required("device_type"),
            tokenColumn: "identifier", platformColumn: "device_type")
        device.set("user_id", row.text("external_user_id"), from: "external_user_id")
        device.set("language", row.text("language"), from: "language")
        device.set("country", row.text("country"), from: "country")
        device.set("timezone", row.text("timezone_id"), from: "timezone_id")
        device.set("app_version", row.text("game_version"), from: "game_version")
        device.set("os_version", row.text("device_os"), from: "device_os")
        device.set("device_model", row.text("device_model"), from: "device_model")
        if let types = row.text("notification_types") {
            guard let value = Int(types) else {
                throw ImportRowError(
                    column: "notification_types", rule: "invalid_integer",
                    message: "notification_types must be an integer, not '\(types.prefix(40))'")
            }
            // Positive: subscribed; zero or negative: unsubscribed or never asked.
            device.setConsent("notifications", value > 0, from: "notification_types")
        }
        for (key, value) in try row.object("tags") ?? [:] {
            device.setAttribute(key, value, from: "tags")
        }
        var imported = ImportedRow(devices: [device])
        imported.userID = row.text("external_user_id")
        imported.userColumn = "external_user_id"
        imported.attributesColumn = "tags"
        return imported
    }
}
