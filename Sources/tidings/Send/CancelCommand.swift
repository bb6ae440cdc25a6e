import Foundation
import TidingsModel

/// `tidings cancel MESSAGE_ID`: stops every push of a message not yet handed to the provider, on every instance.
enum CancelCommand {
    static let usage = """
        usage: tidings cancel MESSAGE_ID [--json]

        Cancels a message: a scheduled one is never resolved, and every delivery not yet handed to APNs or FCM
        ends cancelled, on every tidingsd instance, within a second; pushes already in flight finish and are
        counted as sent or failed (docs/campaigns.md, "Cancelling"). Prints the counts as they stand then.
        A message already sent to every target exits 1 (409 already_finished).

        \(ServerConnection.usage)
        """

    static func run(_ rawArguments: [String]) async throws -> Int32 {
        if ArgumentList.asksForHelp(rawArguments) {
            Console.write(usage + "\n")
            return ExitCode.success
        }
        let arguments = try ArgumentList(rawArguments, options: ServerConnection.optionNames, flags: ["json"])
        guard arguments.positionals.count == 1 else { throw CommandLineError.usage("cancel: give one MESSAGE_ID") }
        let client = try ServerClient(arguments: arguments)
        let answer = try await client.cancelMessage(arguments.positionals[0])
        if arguments.flag("json") {
            try Console.writeJSON(answer)
        } else {
            let counts = answer["counts"] ?? .null
            func count(_ name: String) -> Int64 { counts[name]?.integerValue ?? 0 }
            Console.write(
                "message \(arguments.positionals[0]) \(answer["state"]?.stringValue ?? "cancelled"): "
                    + "\(count("cancelled")) cancelled, \(count("sent")) sent, \(count("failed")) failed, "
                    + "\(count("skipped")) skipped, of \(count("targets")) targets\n")
        }
        return ExitCode.success
    }
}
