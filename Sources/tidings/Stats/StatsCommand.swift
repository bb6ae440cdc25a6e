import Foundation
import TidingsModel

/// `tidings stats MESSAGE_ID` and `tidings stats --campaign ID`: the delivery and engagement funnel.
enum StatsCommand {
    static let usage = """
        usage: tidings stats MESSAGE_ID [--json]
               tidings stats --campaign ID [--json]

        A message shows its state and delivery counts (targets, sent, failed, skipped by reason) above the
        funnel, and a local-time message its due times (the next one, and per due time and UTC offset how many
        wait, were sent or skipped); a campaign shows the funnel of all its messages. The funnel counts events per stage and the
        distinct installations behind them; rates divide installations by those delivered to.

        \(ServerConnection.usage)
        """

    static func run(_ rawArguments: [String]) async throws -> Int32 {
        if ArgumentList.asksForHelp(rawArguments) {
            Console.write(usage + "\n")
            return ExitCode.success
        }
        let arguments = try ArgumentList(
            rawArguments, options: ServerConnection.optionNames.union(["campaign"]), flags: ["json"])
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
                    + BreakdownText.render(funnel: funnel) + LocalScheduleText.render(answer["local_schedule"]))
        }
        return ExitCode.success
    }
}
