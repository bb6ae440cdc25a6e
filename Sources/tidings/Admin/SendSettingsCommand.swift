import TidingsModel

/// `tidings apps send-settings APP [...]`: shows or changes an app's rate ceiling, frequency cap and default
/// time to live (docs/campaigns.md).
enum SendSettingsCommand {
    static let usage = """
        usage: tidings apps send-settings APP [--rate N|default] [--frequency-cap N/SECONDS|none]
                                              [--default-ttl SECONDS|default] [--json]

        With no option, shows the settings. --rate caps the app's pushes a second over all its messages;
        --frequency-cap 3/86400 lets each installation get at most 3 marketing pushes in any 24 hours
        (transactional messages are exempt); --default-ttl is how long a message without ttl lives (0: now or
        never; default: the server's --default-ttl).
        """

    static func run(_ rawArguments: [String]) async throws -> Int32 {
        let arguments = try ArgumentList(
            rawArguments, options: ServerConnection.adminOptionNames.union(["rate", "frequency-cap", "default-ttl"]),
            flags: ["json"])
        guard arguments.positionals.count == 1 else {
            throw CommandLineError.usage("apps send-settings: give APP; run 'tidings apps --help'")
        }
        let app = arguments.positionals[0]
        var changes: [String: JSONValue] = [:]
        if let rate = arguments.option("rate") {
            changes["rate_per_second"] = try number(rate, "rate", reset: "default", minimum: 1)
        }
        if let ttl = arguments.option("default-ttl") {
            changes["default_ttl"] = try number(ttl, "default-ttl", reset: "default", minimum: 0)
        }
        if let cap = arguments.option("frequency-cap") {
            changes["frequency_cap"] = try frequencyCap(cap)
        }
        let admin = try AdminClient(arguments: arguments)
        let answer =
            changes.isEmpty
            ? try await admin.sendSettings(app) : try await admin.updateSendSettings(app, .object(changes))
        try Console.writeAnswer(answer, json: arguments.flag("json"), human: text)
        return ExitCode.success
    }

    static func number(_ text: String, _ option: String, reset: String, minimum: Int64) throws -> JSONValue {
        if text == reset { return .null }
        guard let value = Int64(text), value >= minimum else {
            throw CommandLineError.usage(
                "apps send-settings: --\(option) '\(text)' must be a whole number, \(minimum) or more, or \(reset)")
        }
        return .integer(value)
    }

    /// `N/SECONDS`, or `none`.
    static func frequencyCap(_ text: String) throws -> JSONValue {
        if text == "none" { return .null }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let count = Int64(parts[0]), count >= 1, let window = Int64(parts[1]), window >= 1
        else {
            throw CommandLineError.usage(
                "apps send-settings: --frequency-cap '\(text)' must be N/SECONDS (3/86400: 3 a day) or none")
        }
        return ["count": .integer(count), "window_seconds": .integer(window)]
    }

    static func text(_ settings: JSONValue) -> String {
        var rows = TwoColumnText(minimumLabelWidth: 14)
        rows.row("App", DisplayText.value(settings["app_id"]))
        rows.row(
            "Rate ceiling",
            settings["rate_per_second"]?.integerValue.map { "\($0) pushes/s" } ?? "none")
        if let count = settings["frequency_cap"]?["count"]?.integerValue,
            let window = settings["frequency_cap"]?["window_seconds"]?.integerValue
        {
            rows.row("Frequency cap", "\(count) marketing pushes per \(window) s")
        } else {
            rows.row("Frequency cap", "none")
        }
        rows.row("Default TTL", settings["default_ttl"]?.integerValue.map { "\($0) s" } ?? "the server's")
        return rows.render()
    }
}
