import TidingsModel

/// FCM registration tokens, which is all Firebase keeps of a device: `token` (or `registration_token`), with
/// the app's `user_id` and `platform` when its backend stored them (Android when it did not).
struct FCMImportProfile: ImportProfile {
    let name = "fcm"
    let formats: Set<ImportFormat> = [.csv, .ndjson]

    func map(_ row: ImportSourceRow) throws(ImportRowError) -> ImportedRow {
        let column = row.text("token") == nil && row.text("registration_token") != nil ? "registration_token" : "token"
        let token = try row.required(column)
        var device = ImportedDevice(sourceID: token, sourceColumn: column)
        device.set("platform", row.text("platform")?.lowercased() ?? "android", from: "platform")
        device.set("fcm_token", token, from: column)
        device.set("user_id", row.text("user_id"), from: "user_id")
        var imported = ImportedRow(devices: [device])
        imported.userID = row.text("user_id")
        return imported
    }
}
