import Foundation
import TidingsModel

/// `tidings live-activity start|update|end`: drives Live Activities through `POST /v1/live-activities`
/// (docs/live-activities.md) and prints what became of the pushes.
enum LiveActivityCommand {
    static let usage = """
        usage: tidings live-activity start|update|end [options]

          start    start an activity on each matched device with a push-to-start token (iOS 17.2+)
          update   change a running activity's content state
          end      end it; it stays on the Lock Screen until --dismiss-at (iOS decides without it)

        which activities:
          --activity-id ID         the activity; for start, the id Tidings gives the activities it starts
          --installation ID | --user ID | --tag-expression EXPR | --all
                                   start: who gets it; update and end: instead of --activity-id

        content:
          --attributes-type NAME   start: the ActivityAttributes type, e.g. DeliveryAttributes
          --attributes JSON|@FILE  start: the attributes (a JSON object)
          --state JSON|@FILE       the content state (a JSON object; start and update need it)
          --title TEXT --body TEXT --sound NAME
                                   an alert (start needs a title and a body)
          --stale-at TIME          when the content goes stale
          --dismiss-at TIME        end: when iOS removes the activity from the Lock Screen
          --relevance-score N      its order among the app's activities (a number ≥ 0)
          --priority 5|10          10 only when it is urgent: Apple budgets priority-10 updates
          --refuse-over-budget     refuse (429) rather than send at priority 5 when the budget is spent
          --ttl SECONDS            how long APNs keeps trying (0 to 43200; default 3600)

        TIME is unix seconds, an RFC 3339 time with its offset, or +SECONDS from now.

        output:
          --json                   the server's answer as JSON

        \(ServerConnection.usage)
        """

    static let optionNames: Set<String> = [
        "activity-id", "installation", "user", "tag-expression", "attributes-type", "attributes", "state", "title",
        "body", "sound", "stale-at", "dismiss-at", "relevance-score", "priority", "ttl",
    ]
    static let flagNames: Set<String> = ["all", "refuse-over-budget", "json"]
    static let events: Set<String> = ["start", "update", "end"]

    static func run(_ rawArguments: [String]) async throws -> Int32 {
        if ArgumentList.asksForHelp(rawArguments) {
            Console.write(usage + "\n")
            return ExitCode.success
        }
        let arguments = try ArgumentList(
            rawArguments, options: optionNames.union(ServerConnection.optionNames), flags: flagNames)
        let body = try body(arguments, now: Date())
        let client = try ServerClient(arguments: arguments)
        let answer = try await client.json("POST", ["v1", "live-activities"], body: body)
        if arguments.flag("json") {
            try Console.writeJSON(answer)
        } else {
            Console.write(describe(answer))
        }
        return ExitCode.success
    }

    /// The request body for `arguments` (the event first, then the options).
    /// - Throws: ``CommandLineError`` (usage) for a missing or malformed option; rules the server owns (which
    ///   fields each event needs, date order, sizes) are left to it.
    static func body(
        _ arguments: ArgumentList, now: Date,
        readFile: (String) throws -> Data = { try Data(contentsOf: URL(fileURLWithPath: $0)) }
    ) throws -> JSONValue {
        guard let event = arguments.positionals.first, events.contains(event) else {
            throw CommandLineError.usage(
                "live-activity: say start, update or end first; run 'tidings live-activity --help'")
        }
        if let extra = arguments.positionals.dropFirst().first {
            throw CommandLineError.usage("live-activity: unexpected argument '\(extra)'")
        }
        var body: [String: JSONValue] = ["event": .string(event)]
        if let id = arguments.option("activity-id") { body["activity_id"] = .string(id) }
        let targeted = ["installation", "user", "tag-expression"].contains { !arguments.values($0).isEmpty }
        if targeted || arguments.flag("all") || event == "start" {
            body["target"] = try MessageBodyBuilder.target(arguments, command: "live-activity")
        }
        if let type = arguments.option("attributes-type") { body["attributes_type"] = .string(type) }
        if let text = arguments.option("attributes") {
            body["attributes"] = try object(text, option: "--attributes", readFile: readFile)
        }
        if let text = arguments.option("state") {
            body["content_state"] = try object(text, option: "--state", readFile: readFile)
        }
        var alert: [String: JSONValue] = [:]
        for name in ["title", "body", "sound"] {
            if let value = arguments.option(name) { alert[name] = .string(value) }
        }
        if !alert.isEmpty { body["alert"] = .object(alert) }
        if let time = arguments.option("stale-at") { body["stale_date"] = try seconds(time, "--stale-at", now: now) }
        if let time = arguments.option("dismiss-at") {
            body["dismissal_date"] = try seconds(time, "--dismiss-at", now: now)
        }
        if let text = arguments.option("relevance-score") {
            guard let score = Double(text), score.isFinite else {
                throw CommandLineError.usage("live-activity: --relevance-score '\(text)' must be a number")
            }
            body["relevance_score"] = .double(score)
        }
        if let priority = try arguments.integer("priority", in: 5...10, command: "live-activity") {
            body["priority"] = .integer(Int64(priority))
        }
        if arguments.flag("refuse-over-budget") { body["on_budget_exhausted"] = "refuse" }
        if let ttl = try arguments.integer("ttl", in: 0...43_200, command: "live-activity") {
            body["ttl"] = .integer(Int64(ttl))
        }
        return .object(body)
    }

    /// What became of the pushes, for a person.
    static func describe(_ answer: JSONValue) -> String {
        var text = TwoColumnText()
        if let id = answer["activity_id"]?.stringValue { text.row("Activity", id) }
        func count(_ name: String) -> Int64 { answer[name]?.integerValue ?? 0 }
        text.row("Event", answer["event"]?.stringValue ?? "?")
        text.row("Tokens", "\(count("targets"))")
        text.row("Sent", "\(count("sent")) at priority \(count("priority"))")
        if count("downgraded") > 0 { text.row("Downgraded", "\(count("downgraded")) to priority 5 (budget spent)") }
        if count("removed") > 0 { text.row("Removed", "\(count("removed")) tokens APNs no longer knows") }
        for name in ["failed", "skipped"] {
            let reasons = answer[name]?.objectValue ?? [:]
            guard !reasons.isEmpty else { continue }
            let list = reasons.sorted { $0.key < $1.key }.map { "\($0.value.integerValue ?? 0) \($0.key)" }
            text.row(name.prefix(1).uppercased() + name.dropFirst(), list.joined(separator: ", "))
        }
        return text.render()
    }

    /// Unix seconds, RFC 3339 with an offset, or `+SECONDS` from `now`: the server takes integer seconds.
    static func seconds(_ text: String, _ option: String, now: Date) throws -> JSONValue {
        if text.hasPrefix("+"), let offset = Int64(text.dropFirst()), offset >= 0 {
            return .integer(Int64(now.timeIntervalSince1970.rounded(.down)) + offset)
        }
        if let seconds = Int64(text) { return .integer(seconds) }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        if let date = formatter.date(from: text) { return .integer(Int64(date.timeIntervalSince1970)) }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return .integer(Int64(date.timeIntervalSince1970)) }
        throw CommandLineError.usage(
            "live-activity: \(option) '\(text)' must be unix seconds, an RFC 3339 time with its offset, or +SECONDS")
    }

    /// Inline JSON, or `@FILE` holding it: a JSON object either way.
    static func object(_ text: String, option: String, readFile: (String) throws -> Data) throws -> JSONValue {
        let data: Data
        if text.hasPrefix("@") {
            let path = String(text.dropFirst())
            do {
                data = try readFile(path)
            } catch {
                throw CommandLineError.usage(
                    "live-activity: \(option) cannot read \(path): \(error.localizedDescription)")
            }
        } else {
            data = Data(text.utf8)
        }
        guard let value = try? JSONValue.parse(data), value.objectValue != nil else {
            throw CommandLineError.usage("live-activity: \(option) must be a JSON object, e.g. '{\"eta\": 5}'")
        }
        return value
    }
}
