import Foundation
import TidingsModel
import TidingsStore

/// `tidings devices list|show`: the installations registered with tidingsd.
enum DevicesCommand {
    static let usage = """
        usage: tidings devices list [--user ID] [--tag TAG] [device filters] [--limit N] [--json]
               tidings devices show INSTALLATION_ID [--json]

        list follows the server's pages until --limit installations (default: all) are shown, in
        installation id order; --tag lists installations whose user carries the tag.

        device filters, exact values, all must match; an empty value ("") finds installations where the
        field is unknown:
          --platform ios       --os-name iOS         --app-version 2.3.0   --language ja-JP
          --country JP         --timezone Asia/Tokyo --permission authorized|provisional|ephemeral|denied|not_determined

        show prints every field, the device context included: time zone, language, locale, country, OS,
        device model, app version and build, SDK version, permission, and when each token was registered.

        \(ServerConnection.usage)
        """

    /// The largest page the server gives.
    static let maximumPageSize = 1000

    static func run(_ arguments: [String]) async throws -> Int32 {
        guard let subcommand = arguments.first else {
            throw CommandLineError.usage("devices: missing subcommand (list, show); run 'tidings devices --help'")
        }
        let rest = Array(arguments.dropFirst())
        if ["help", "--help", "-h"].contains(subcommand) || ArgumentList.asksForHelp(rest) {
            Console.write(usage + "\n")
            return ExitCode.success
        }
        switch subcommand {
        case "list": return try await list(rest)
        case "show": return try await show(rest)
        default:
            throw CommandLineError.usage("devices: unknown subcommand '\(subcommand)'; run 'tidings devices --help'")
        }
    }

    static func list(_ rawArguments: [String]) async throws -> Int32 {
        let filterOptions = Set(InstallationFilter.deviceFields.map(\.option))
        let arguments = try ArgumentList(
            rawArguments, options: ServerConnection.optionNames.union(["user", "tag", "limit"]).union(filterOptions),
            flags: ["json"])
        if let extra = arguments.positionals.first {
            throw CommandLineError.usage("devices list: unexpected argument '\(extra)'")
        }
        let limit = try arguments.positiveInteger("limit", command: "devices list")
        var filter = InstallationFilter(userID: arguments.option("user"), tag: arguments.option("tag"))
        for (option, parameter) in InstallationFilter.deviceFields {
            if let value = arguments.option(option) { filter.fields[parameter] = value }
        }
        let client = try ServerClient(arguments: arguments)
        var installations: [JSONValue] = []
        var cursor: String?
        repeat {
            let wanted = limit.map { $0 - installations.count } ?? maximumPageSize
            let page = try await client.installations(filter, cursor: cursor, limit: min(wanted, maximumPageSize))
            installations += page.items.prefix(wanted)
            cursor = page.nextCursor
        } while cursor != nil && installations.count < (limit ?? Int.max)
        if arguments.flag("json") {
            try Console.writeJSON(["installations": .array(installations)])
            return ExitCode.success
        }
        // The fields people sort devices by when deciding whom to send to; `show` and `--json` have the rest.
        var table = ColumnText([
            ("INSTALLATION", .left), ("USER", .left), ("PLATFORM", .left), ("OS", .left), ("APP", .left),
            ("LANGUAGE", .left), ("COUNTRY", .left), ("TIME ZONE", .left), ("TOKENS", .left), ("PERMISSION", .left),
            ("UPDATED", .left),
        ])
        for installation in installations {
            let field = { (key: String) in DisplayText.value(installation[key]) }
            table.row([
                field("installation_id"), field("user_id"), field("platform"), operatingSystem(installation),
                appVersion(installation), field("language"), field("country"), field("timezone"),
                tokens(installation), field("permission"), DisplayText.time(installation["updated_at"]),
            ])
        }
        Console.write(table.render())
        Console.write("\(installations.count) installation(s)\(cursor == nil ? "" : "; more with a larger --limit")\n")
        return ExitCode.success
    }

    static func show(_ rawArguments: [String]) async throws -> Int32 {
        let arguments = try ArgumentList(rawArguments, options: ServerConnection.optionNames, flags: ["json"])
        guard arguments.positionals.count == 1 else {
            throw CommandLineError.usage("devices show: give one INSTALLATION_ID")
        }
        let client = try ServerClient(arguments: arguments)
        let installation = try await client.installation(arguments.positionals[0])
        if arguments.flag("json") {
            try Console.writeJSON(installation)
            return ExitCode.success
        }
        var rows = TwoColumnText(minimumLabelWidth: 12)
        let identity: [(String, String)] = [
            ("Installation", "installation_id"), ("User", "user_id"), ("Platform", "platform"),
            ("Environment", "environment"), ("APNs token", "apns_token"), ("VoIP token", "voip_token"),
            ("FCM token", "fcm_token"),
        ]
        for (label, key) in identity {
            if let value = installation[key], !value.isNull { rows.row(label, DisplayText.value(value)) }
        }
        let registered = (installation["token_registered_at"]?.objectValue ?? [:]).filter { !$0.value.isNull }
        if !registered.isEmpty {
            rows.row("Registered", "")
            for (token, time) in registered.sorted(by: { $0.key < $1.key }) {
                rows.subrow(token, DisplayText.time(time))
            }
        }
        // The device context is shown whole, unknown fields as `-`, so a missing field reads as unknown
        // (what `devices list --timezone ""` finds) rather than as a field this CLI does not print.
        rows.blank()
        rows.row("Permission", DisplayText.value(installation["permission"]))
        rows.row("Time zone", DisplayText.value(installation["timezone"]))
        rows.row("Language", DisplayText.value(installation["language"]))
        rows.row("Locale", DisplayText.value(installation["locale"]))
        rows.row("Country", DisplayText.value(installation["country"]))
        rows.row("OS", operatingSystem(installation))
        rows.row("Device model", DisplayText.value(installation["device_model"]))
        rows.row("App version", appVersion(installation))
        rows.row("SDK version", DisplayText.value(installation["sdk_version"]))
        if let consents = installation["consents"]?.objectValue, !consents.isEmpty {
            rows.row("Consents", "")
            for (name, value) in consents.sorted(by: { $0.key < $1.key }) {
                rows.subrow(name, value.isNull ? "not asked" : DisplayText.value(value))
            }
        }
        rows.blank()
        rows.row("Created", DisplayText.time(installation["created_at"]))
        rows.row("Updated", DisplayText.time(installation["updated_at"]))
        Console.write(rows.render())
        return ExitCode.success
    }

    /// The OS name and version (`iOS 18.1`), whichever is known, or `-`.
    static func operatingSystem(_ installation: JSONValue) -> String {
        let parts = [installation["os_name"]?.stringValue, installation["os_version"]?.stringValue].compactMap { $0 }
        return parts.isEmpty ? "-" : parts.joined(separator: " ")
    }

    /// The app version with its build in parentheses (`2.3.0 (412)`), or whichever is known, or `-`.
    static func appVersion(_ installation: JSONValue) -> String {
        switch (installation["app_version"]?.stringValue, installation["app_build"]?.stringValue) {
        case (let version?, let build?): "\(version) (\(build))"
        case (let version?, nil): version
        case (nil, let build?): "build \(build)"
        case (nil, nil): "-"
        }
    }

    /// Which push tokens an installation holds, e.g. `apns+voip`, or `-`.
    static func tokens(_ installation: JSONValue) -> String {
        let held = [("apns", "apns_token"), ("voip", "voip_token"), ("fcm", "fcm_token")].filter { _, key in
            installation[key]?.stringValue?.isEmpty == false
        }
        return held.isEmpty ? "-" : held.map(\.0).joined(separator: "+")
    }
}
