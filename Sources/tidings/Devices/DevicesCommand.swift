import Foundation
import TidingsModel
import TidingsStore

/// `tidings devices list|show`: the installations registered with tidingsd.
enum DevicesCommand {
    static let usage = """
        usage: tidings devices list [--user ID] [--tag TAG] [--limit N] [--json]
               tidings devices show INSTALLATION_ID [--json]

        list follows the server's pages until --limit installations (default: all) are shown, in
        installation id order; --tag lists installations whose user carries the tag.

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
        let arguments = try ArgumentList(
            rawArguments, options: ServerConnection.optionNames.union(["user", "tag", "limit"]), flags: ["json"])
        if let extra = arguments.positionals.first {
            throw CommandLineError.usage("devices list: unexpected argument '\(extra)'")
        }
        let limit = try arguments.positiveInteger("limit", command: "devices list")
        let client = try ServerClient(arguments: arguments)
        var installations: [JSONValue] = []
        var cursor: String?
        repeat {
            let wanted = limit.map { $0 - installations.count } ?? maximumPageSize
            let page = try await client.installations(
                userID: arguments.option("user"), tag: arguments.option("tag"), cursor: cursor,
                limit: min(wanted, maximumPageSize))
            installations += page.items.prefix(wanted)
            cursor = page.nextCursor
        } while cursor != nil && installations.count < (limit ?? Int.max)
        if arguments.flag("json") {
            try Console.writeJSON(["installations": .array(installations)])
            return ExitCode.success
        }
        var table = ColumnText([
            ("INSTALLATION", .left), ("USER", .left), ("PLATFORM", .left), ("ENVIRONMENT", .left),
            ("TOKENS", .left), ("PERMISSION", .left), ("UPDATED", .left),
        ])
        for installation in installations {
            let field = { (key: String) in DisplayText.value(installation[key]) }
            table.row([
                field("installation_id"), field("user_id"), field("platform"), field("environment"),
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
        let fields: [(String, String)] = [
            ("Installation", "installation_id"), ("User", "user_id"), ("Platform", "platform"),
            ("Environment", "environment"), ("Permission", "permission"), ("APNs token", "apns_token"),
            ("VoIP token", "voip_token"), ("FCM token", "fcm_token"), ("Locale", "locale"), ("Country", "country"),
            ("Time zone", "timezone"), ("App version", "app_version"), ("SDK version", "sdk_version"),
            ("OS version", "os_version"), ("Device model", "device_model"),
        ]
        for (label, key) in fields {
            if let value = installation[key], !value.isNull { rows.row(label, DisplayText.value(value)) }
        }
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

    /// Which push tokens an installation holds, e.g. `apns+voip`, or `-`.
    static func tokens(_ installation: JSONValue) -> String {
        let held = [("apns", "apns_token"), ("voip", "voip_token"), ("fcm", "fcm_token")].filter { _, key in
            installation[key]?.stringValue?.isEmpty == false
        }
        return held.isEmpty ? "-" : held.map(\.0).joined(separator: "+")
    }
}
