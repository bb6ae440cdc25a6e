import TidingsModel

/// A Treasure Data table of devices as its mobile SDK records them (`td_uuid`, `td_os_type`, `td_os_ver`,
/// `td_model`, `td_app_ver`, `td_locale_lang`, `td_locale_country`), with the push token and user id the
/// app added (`push_token`, `user_id`), exported as CSV or NDJSON.
struct TreasureDataImportProfile: ImportProfile {
    let name = "treasuredata"
    let formats: Set<ImportFormat> = [.csv, .ndjson]

    func map(_ row: ImportSourceRow) throws(ImportRowError) -> ImportedRow {
        var device = ImportedDevice(sourceID: try row.required("td_uuid"), sourceColumn: "td_uuid")
        try device.setToken(
            row.text("push_token"), platform: row.text("td_os_type") ?? "ios", tokenColumn: "push_token",
            platformColumn: "td_os_type")
        device.set("os_version", row.text("td_os_ver"), from: "td_os_ver")
        device.set("device_model", row.text("td_model"), from: "td_model")
        device.set("app_version", row.text("td_app_ver"), from: "td_app_ver")
        device.set("language", row.text("td_locale_lang"), from: "td_locale_lang")
        device.set("country", row.text("td_locale_country"), from: "td_locale_country")
        device.set("user_id", row.text("user_id"), from: "user_id")
        var imported = ImportedRow(devices: [device])
        imported.userID = row.text("user_id")
        return imported
    }
}
