import TidingsModel

/// MoEngage's user export, one row per device: `uid` (the customer id), `push_id` (the device's push token),
/// `platform` (`iOS`, `ANDROID`), device facts, and in NDJSON the `user_attributes` object.
struct MoEngageImportProfile: ImportProfile {
    let name = "moengage"
    let formats: Set<ImportFormat> = [.csv, .ndjson]

    func map(_ row: ImportSourceRow) throws(ImportRowError) -> ImportedRow {
        let token = try row.required("push_id")
        var device = ImportedDevice(sourceID: token, sourceColumn: "push_id")
        try device.setToken(
            token, platform: try row.required("platform"), tokenColumn: "push_id", platformColumn: "platform")
        device.set("user_id", row.text("uid"), from: "uid")
        for (column, field) in [
            ("app_version", "app_version"), ("os_version", "os_version"), ("device_model", "device_model"),
            ("timezone", "timezone"), ("language", "language"), ("country", "country"),
        ] {
            device.set(field, row.text(column), from: column)
        }
        if let optedOut = try row.flag("push_opted_out") {
            device.setConsent("notifications", !optedOut, from: "push_opted_out")
        }
        for (key, value) in try row.object("user_attributes") ?? [:] where value.isScalar {
            device.setAttribute(key, value, from: "user_attributes")
        }
        var imported = ImportedRow(devices: [device])
        imported.userID = row.text("uid")
        imported.userColumn = "uid"
        imported.attributesColumn = "user_attributes"
        return imported
    }
}
