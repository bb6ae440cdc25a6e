import Foundation
import TidingsModel

/// `tidings stats MESSAGE_ID`, `tidings stats --campaign ID` and `tidings stats --overview`: the delivery and
/// engagement funnel, or the app's last days.
enum StatsCommand {
    static let usage = """
        usage: tidings stats MESSAGE_ID [--json]
               tidings stats --campaign ID [--json]
               tidings stats --overview [--days N] [--json]

        A message shows its state and delivery counts (targets, sent, failed, skipped by reason) above the
        funnel; with variants each variant's funnel and, when the message names a conversion, each variant's
        conversions with their 95% intervals; a local-time message its due times (the next one, and per due time
        and UTC offset how many wait, were sent, skipped or cancelled); a split test that picks its winner where
        its decision stands and, once decided, each variant's conversions at the test's confidence and the
        follow-up message that sends the winner. A campaign shows the funnel of all its
        messages. The funnel counts events per stage and the distinct installations behind them; rates divide
        installations by those delivered to. --overview shows the app's last N days (14 by default, at most 90)
        as the console's overview does: pushes sent, deliveries, and the open rate (opens of the messages
        delivered in those days over those deliveries).

        \(ServerConnection.usage)
        """

    static func run(_ rawArguments: [String]) async throws -> Int32 {
        if ArgumentList.asksForHelp(rawArguments) {
            Console.write(usage + "\n")
            return ExitCode.success
        }
        let arguments = try ArgumentList(
            rawArguments, options: ServerConnection.optionNames.union(["campaign", "days"]),
            flags: ["json", "overview"])
        if arguments.flag("overview") { return try await overview(arguments) }
        if arguments.option("days") != nil { throw CommandLineError.usage("stats: --days goes with --overview") }
        let campaign = arguments.option("campaign")
        switch (arguments.positionals.count, campaign) {
        case (1, nil), (0, .some): break
        case (0, nil): throw CommandLineError.usage("stats: give a MESSAGE_ID or --campaign ID")
        case (_, .some): throw CommandLineError.usage("stats: give a MESSAGE_ID or --campaign ID, not both")
        default: throw CommandLineError.usage("stats: give one MESSAGE_ID")
        }
        let client = try ServerClient(arguments: arguments)
        let answer: JSONValue
        let funnel: JSONValue
        let counts: JSONValue?
        if let campaign {
            answer = try await client.campaignStats(campaign)
            funnel = answer
            counts = nil
        } else {
            answer = try await client.message(arguments.positionals[0])
            funnel = answer["funnel"] ?? [:]
            counts = answer["counts"]
        }
        if arguments.flag("json") {
            try Console.writeJSON(answer)
        } else {
            Console.write(
                FunnelText.header(answer) + "\n" + FunnelText.render(funnel: funnel, counts: counts)
                    + BreakdownText.render(funnel: funnel) + LocalScheduleText.render(answer["local_schedule"])
                    + (campaign == nil ? WinnerText.render(answer) : ""))
        }
        return ExitCode.success
    }

    private static func overview(_ arguments: ArgumentList) async throws -> Int32 {
        guard arguments.positionals.isEmpty, arguments.option("campaign") == nil else {
            throw CommandLineError.usage("stats: --overview takes no MESSAGE_ID or --campaign")
        }
        var days = 14
        if let text = arguments.option("days") {
            guard let value = Int(text), (1...90).contains(value) else {
                throw CommandLineError.usage("stats: --days must be a whole number from 1 to 90")
            }
            days = value
        }
        let answer = try await ServerClient(arguments: arguments).overview(days: days)
        if arguments.flag("json") {
            try Console.writeJSON(answer)
            return ExitCode.success
        }
        let totals = answer["totals"] ?? .null
        var table = ColumnText([("LAST \(days) DAYS", .left), ("", .right)])
        table.row(["sent", FunnelText.number(totals["sent"])])
        table.row(["failed", FunnelText.number(totals["failed"])])
        table.row(["delivered", FunnelText.number(totals["delivered"])])
        table.row(["opened", FunnelText.number(totals["opened"])])
        table.row(["open rate", FunnelText.percent(totals["open_rate"])])
        Console.write(table.render())
        return ExitCode.success
    }
}
