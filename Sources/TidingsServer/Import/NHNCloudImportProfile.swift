import TidingsModel

/// NHN Cloud Push's tokens as its token API answers them (`token`, `pushType`, the three agreements,
/// `timezoneId`, `country`, `language`, `uid`, `deviceId`), as CSV with those headers or as NDJSON.
struct NHNCloudImportProfile: ImportProfile {
    let name = "nhncloud"
    let formats: Set<ImportFormat> = [.csv, .ndjson]

    func map(_ row: ImportSourceRow) throws(ImportRowError) -> ImportedRow {
        let token = try row.required("token")
        let sourceColumn = row.text("deviceId") == nil ? "token" : "deviceId"
        var device = ImportedDevice(sourceID: row.text("deviceId") ?? token, sourceColumn: sourceColumn)
        let pushType = try row.required("pushType")
        switch pushType.uppercased() {
        case "APNS", "APNS_SANDBOX":
            device.set("platform", "ios", from: "pushType")
            device.set("apns_token", token, from: "token")
            device.set("environment", pushType.uppercased() == "APNS" ? "production" : "sandbox", from: "pushType")
        case "APNS_VOIP", "APNS_SANDBOX_VOIP":
            device.set("platform", "ios", from: "pushType")
            device.set("voip_token", token, from: "token")
            device.set(
                "environment", pushType.uppercased() == "APNS_VOIP" ? "production" : "sandbox", from: "pushType")
        case "FCM", "GCM":
            device.set("platform", "android", from: "pushType")
            device.set("fcm_token", token, from: "token")
        default:
            throw ImportRowError(
                column: "pushType", rule: "unsupported_platform",
                message:
                    "pushType '\(pushType.prefix(40))' is not APNS, APNS_SANDBOX, APNS_VOIP, APNS_SANDBOX_VOIP or FCM")
        }
        device.setConsent("notifications", try row.flag("isNotificationAgreement"), from: "isNotificationAgreement")
        device.setConsent("ads", try row.flag("isAdAgreement"), from: "isAdAgreement")
        device.setConsent("night_ads", try row.flag("isNightAdAgreement"), from: "isNightAdAgreement")
        device.set("timezone", row.text("timezoneId"), from: "timezoneId")
        device.set("country", row.text("country"), from: "country")
        device.set("language", row.text("language"), from: "language")
        device.set("user_id", row.text("uid"), from: "uid")
        var imported = ImportedRow(devices: [device])
        imported.userID = row.text("uid")
        imported.userColumn = "uid"
        return imported
    }
}
