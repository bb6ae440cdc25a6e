import Foundation
import TidingsModel

/// `tidings events query|tail`: the events devices uploaded to tidingsd.
enum EventsCommand {
    static let usage = """
        usage: tidings events query [filters] [--limit N] [--page-size N] [--json | --ndjson | --csv]
               tidings events tail [filters] [--count N] [--interval SECONDS] [--page-size N] [--json]

        filters:
          --type TYPE          delivery, open, dismiss, link_open, deeplink_open, action, ...
          --message ID         events of one message
          --campaign ID        events of one campaign
          --since TIME         occurred at or after TIME
          --until TIME         occurred before TIME (query only)
        TIME is milliseconds since 1970, an ISO 8601 date-time (2026-11-29T12:00:00Z), or a duration ago
        (30s, 15m, 2h, 7d).

        query prints every matching event, oldest first, following the server's pages (--limit stops early):
        a table, --json (one document), --ndjson (one event per line) or --csv (a header, then one row per
        event), the last two exactly as the server exports them.

        tail prints events as the server receives them from now on (with --since: those that occurred from
        TIME) until interrupted or --count events were printed; it asks every --interval seconds (default 1).
        --json prints one event per line.

        --page-size N asks the server for N events per request (default 1000 for JSON, 10000 for NDJSON
        and CSV; the server allows up to 1000 and 100000).

        \(ServerConnection.usage)
        """

    /// Events per request of a JSON page (the server's maximum).
    static let jsonPageSize = 1000
    /// Events per request of an NDJSON or CSV export (the server allows up to 100,000).
    static let exportPageSize = 10_000
    static let filterOptions: Set<String> = ["type", "message", "campaign", "since", "until"]

    static func run(_ arguments: [String]) async throws -> Int32 {
        guard let subcommand = arguments.first else {
            throw CommandLineError.usage("events: missing subcommand (query, tail); run 'tidings events --help'")
        }
        let rest = Array(arguments.dropFirst())
        if ["help", "--help", "-h"].contains(subcommand) || ArgumentList.asksForHelp(rest) {
            Console.write(usage + "\n")
            return ExitCode.success
        }
        switch subcommand {
        case "query": return try await query(rest)
        case "tail": return try await tail(rest)
        default:
            throw CommandLineError.usage("events: unknown subcommand '\(subcommand)'; run 'tidings events --help'")
        }
    }

    static func query(_ rawArguments: [String]) async throws -> Int32 {
        let arguments = try ArgumentList(
            rawArguments, options: ServerConnection.optionNames.union(filterOptions).union(["limit", "page-size"]),
            flags: ["json", "ndjson", "csv"])
        try noPositionals(arguments, "events query")
        let formats = ["json", "ndjson", "csv"].filter(arguments.flag)
        guard formats.count <= 1 else {
            throw CommandLineError.usage("events query: give one of --json, --ndjson, --csv")
        }
        let limit = try arguments.positiveInteger("limit", command: "events query")
        let pageSize = try arguments.positiveInteger("page-size", command: "events query")
        let filter = try filter(arguments, now: Date())
        let client = try ServerClient(arguments: arguments)
        if let format = formats.first.flatMap(EventExport.Format.init(rawValue:)) {
            try await export(filter, format: format, limit: limit, pageSize: pageSize ?? exportPageSize, client: client)
            return ExitCode.success
        }
        var events: [JSONValue] = []
        var cursor: String?
        repeat {
            let size = pageSize ?? jsonPageSize
            let wanted = limit.map { $0 - events.count } ?? size
            let page = try await client.events(filter, cursor: cursor, limit: min(wanted, size))
            events += page.items.prefix(wanted)
            cursor = page.nextCursor
        } while cursor != nil && events.count < (limit ?? Int.max)
        if arguments.flag("json") {
            try Console.writeJSON(["events": .array(events)])
            return ExitCode.success
        }
        var table = ColumnText([
            ("OCCURRED", .left), ("TYPE", .left), ("INSTALLATION", .left), ("MESSAGE", .left), ("CAMPAIGN", .left),
            ("DETAIL", .left),
        ])
        for event in events { table.row(cells(event)) }
        Console.write(table.render())
        Console.write("\(events.count) event(s)\(cursor == nil ? "" : "; more with a larger --limit")\n")
        return ExitCode.success
    }

    /// Streams NDJSON or CSV pages to standard output as they arrive; later CSV pages lose their header.
    static func export(
        _ filter: EventFilter, format: EventExport.Format, limit: Int?, pageSize: Int, client: ServerClient
    ) async throws {
        var written = 0
        var cursor: String?
        var first = true
        repeat {
            let wanted = min(limit.map { $0 - written } ?? pageSize, pageSize)
            let page = try await client.exportEvents(filter, format: format, cursor: cursor, limit: wanted)
            var body = page.body[...]
            if format == .csv && !first, let newline = body.firstIndex(of: UInt8(ascii: "\n")) {
                body = body[body.index(after: newline)...]
            }
            FileHandle.standardOutput.write(Data(body))
            written += wanted
            cursor = page.nextCursor
            first = false
        } while cursor != nil && written < (limit ?? Int.max)
    }

    static func tail(_ rawArguments: [String]) async throws -> Int32 {
        let arguments = try ArgumentList(
            rawArguments,
            options: ServerConnection.optionNames.union(filterOptions).union(["count", "interval", "page-size"])
                .subtracting([
                    "until"
                ]),
            flags: ["json"])
        try noPositionals(arguments, "events tail")
        let count = try arguments.positiveInteger("count", command: "events tail")
        let pageSize = try arguments.positiveInteger("page-size", command: "events tail")
        var interval = 1.0
        if let text = arguments.option("interval") {
            guard let seconds = Double(text), seconds >= 0.05 else {
                throw CommandLineError.usage("events tail: --interval '\(text)' must be at least 0.05 seconds")
            }
            interval = seconds
        }
        let now = Date()
        var filter = try filter(arguments, now: now)
        // Without --since, follow what the server receives from now on: an app uploads events some time after
        // they occur, so a filter on occurrence would miss the ones that happened just before the tail began.
        if filter.since == nil { filter.receivedSince = String(now.millisecondsSince1970) }
        let client = try ServerClient(arguments: arguments)
        let json = arguments.flag("json")
        var printed = 0
        var tailer = EventTailer(filter: filter)
        while true {
            let events = try await tailer.poll(client, pageSize: pageSize ?? jsonPageSize)
            for event in events {
                if json {
                    try Console.writeJSON(event, pretty: false)
                } else {
                    Console.write(cells(event).filter { !$0.isEmpty }.joined(separator: "  ") + "\n")
                }
                printed += 1
                if let count, printed >= count { return ExitCode.success }
            }
            if !tailer.hasMore { try await Task.sleep(for: .seconds(interval)) }
        }
    }

    /// The filter options; durations such as `15m` become milliseconds since 1970 counted back from `now`.
    static func filter(_ arguments: ArgumentList, now: Date) throws -> EventFilter {
        var filter = EventFilter()
        filter.type = arguments.option("type")
        filter.messageID = arguments.option("message")
        filter.campaignID = arguments.option("campaign")
        filter.since = try arguments.option("since").map { try time($0, option: "since", now: now) }
        filter.until = try arguments.option("until").map { try time($0, option: "until", now: now) }
        return filter
    }

    /// `30s`, `15m`, `2h`, `7d` as milliseconds since 1970 before `now`; anything else passes to the server.
    static func time(_ text: String, option: String, now: Date) throws -> String {
        guard let unit = text.last, "smhd".contains(unit), let amount = Int64(text.dropLast()) else {
            guard !text.isEmpty else { throw CommandLineError.usage("events: --\(option) needs a time") }
            return text
        }
        let seconds: Int64 =
            switch unit {
            case "s": 1
            case "m": 60
            case "h": 3600
            default: 86_400
            }
        return String(now.millisecondsSince1970 - amount * seconds * 1000)
    }

    /// One event as table cells: time, type, installation, message, campaign, and what else it says.
    static func cells(_ event: JSONValue) -> [String] {
        var detail: [String] = []
        for key in ["action_id", "value", "source", "app_state"] {
            if let value = event[key]?.stringValue, !value.isEmpty { detail.append("\(key)=\(value)") }
        }
        return [
            DisplayText.time(event["occurred_at"]), event["type"]?.stringValue ?? "-",
            event["installation_id"]?.stringValue ?? "-", event["message_id"]?.stringValue ?? "-",
            event["campaign_id"]?.stringValue ?? "-", detail.joined(separator: " "),
        ]
    }

    static func noPositionals(_ arguments: ArgumentList, _ command: String) throws {
        if let extra = arguments.positionals.first {
            throw CommandLineError.usage("\(command): unexpected argument '\(extra)'")
        }
    }
}
