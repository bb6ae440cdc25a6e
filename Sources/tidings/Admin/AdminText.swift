import TidingsModel

/// How the administration API's apps, keys and identity keys look for people. Only what the server answers
/// is shown, and it answers no secrets: a key appears as its hint (`tdg_srv_AbCd…`), credentials as their ids.
enum AdminText {
    /// One app, field by field.
    static func app(_ app: JSONValue) -> String {
        var rows = TwoColumnText(minimumLabelWidth: 12)
        rows.row("App", DisplayText.value(app["app_id"]))
        rows.row("Name", DisplayText.value(app["name"]))
        rows.row("Bundle ID", DisplayText.value(app["bundle_id"]))
        rows.row("Identity", DisplayText.value(app["identity_verification"]))
        rows.row("Rate limit", rate(app["requests_per_second"], unit: " requests/s per key"))
        rows.row("APNs", apns(app["apns"]) ?? "not configured")
        rows.row("FCM", fcm(app["fcm"]) ?? "not configured")
        rows.row("Created", DisplayText.time(app["created_at"]))
        return rows.render()
    }

    /// Apps as a table, then their count.
    static func apps(_ apps: [JSONValue]) -> String {
        var table = ColumnText([
            ("APP", .left), ("NAME", .left), ("BUNDLE ID", .left), ("IDENTITY", .left), ("RATE", .left),
            ("APNS KEY", .left), ("FCM PROJECT", .left), ("CREATED", .left),
        ])
        for app in apps {
            table.row([
                DisplayText.value(app["app_id"]), DisplayText.value(app["name"]), DisplayText.value(app["bundle_id"]),
                DisplayText.value(app["identity_verification"]), rate(app["requests_per_second"], unit: ""),
                configured(app["apns"], "key_id"), configured(app["fcm"], "project_id"),
                DisplayText.time(app["created_at"]),
            ])
        }
        return table.render() + "\(apps.count) app(s)\n"
    }

    /// API keys as a table, then their count.
    static func keys(_ keys: [JSONValue]) -> String {
        var table = ColumnText([
            ("KEY", .left), ("KIND", .left), ("HINT", .left), ("CREATED", .left), ("REVOKED", .left),
        ])
        for key in keys {
            table.row([
                DisplayText.value(key["key_id"]), DisplayText.value(key["kind"]), DisplayText.value(key["hint"]),
                DisplayText.time(key["created_at"]), DisplayText.time(key["revoked_at"]),
            ])
        }
        return table.render() + "\(keys.count) key(s)\n"
    }

    /// Identity keys as a table (their public keys only with `--json`: a PEM does not fit a row).
    static func identityKeys(_ keys: [JSONValue]) -> String {
        var table = ColumnText([("KEY ID", .left), ("ALGORITHM", .left), ("CREATED", .left)])
        for key in keys {
            table.row([
                DisplayText.value(key["key_id"]), DisplayText.value(key["algorithm"]),
                DisplayText.time(key["created_at"]),
            ])
        }
        return table.render() + "\(keys.count) identity key(s)\n"
    }

    /// `requests_per_second`: a number, or the server's default when it is null.
    private static func rate(_ value: JSONValue?, unit: String) -> String {
        guard case .integer(let rate)? = value else { return "default" }
        return "\(rate)\(unit)"
    }

    private static func apns(_ apns: JSONValue?) -> String? {
        guard apns?["configured"] == .bool(true) else { return nil }
        return "key \(DisplayText.value(apns?["key_id"])), team \(DisplayText.value(apns?["team_id"]))"
    }

    private static func fcm(_ fcm: JSONValue?) -> String? {
        guard fcm?["configured"] == .bool(true) else { return nil }
        return "project \(DisplayText.value(fcm?["project_id"])), \(DisplayText.value(fcm?["client_email"]))"
    }

    /// A credential's identifying member when it is configured, else `-`.
    private static func configured(_ credentials: JSONValue?, _ member: String) -> String {
        credentials?["configured"] == .bool(true) ? DisplayText.value(credentials?[member]) : "-"
    }
}
