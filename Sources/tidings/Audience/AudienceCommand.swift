import Foundation
import TidingsModel
import TidingsStore

/// `tidings audience count EXPR`: how many installations an audience expression selects now.
enum AudienceCommand {
    static let usage = """
        usage: tidings audience count EXPR [--json]

        Counts the app's installations an audience expression selects (docs/audiences.md), e.g.
          tidings audience count 'tag:vip and language in (ja, en) and last_seen > 30d ago'
        A malformed expression is shown with a caret under the problem before anything is sent.

        \(ServerConnection.usage)
        """

    static func run(_ rawArguments: [String]) async throws -> Int32 {
        if ArgumentList.asksForHelp(rawArguments) {
            Console.write(usage + "\n")
            return ExitCode.success
        }
        let arguments = try ArgumentList(rawArguments, options: ServerConnection.optionNames, flags: ["json"])
        guard arguments.positionals.first == "count" else {
            throw CommandLineError.usage("audience: the subcommand is count; run 'tidings audience --help'")
        }
        guard arguments.positionals.count == 2 else {
            throw CommandLineError.usage("audience count: give one EXPR (quote it for the shell)")
        }
        let expression = arguments.positionals[1]
        try validate(expression, command: "audience count")
        let client = try ServerClient(arguments: arguments)
        let answer = try await client.json(
            "POST", ["v1", "audience", "count"], body: ["audience": .string(expression)])
        if arguments.flag("json") {
            try Console.writeJSON(answer)
        } else {
            guard let count = answer["count"]?.integerValue else {
                throw CommandLineError.failure("audience count: the server answered without a count")
            }
            Console.write("\(count)\n")
        }
        return ExitCode.success
    }

    /// Parses `expression` as the server will, so a mistake is shown at once, with a caret under it. Saved
    /// segments (`segment:NAME`) are the server's to know: a name this side cannot look up is left to it.
    /// - Throws: ``CommandLineError`` (usage) with the expression, the caret and the message.
    static func validate(_ expression: String, command: String) throws {
        do {
            _ = try AudienceExpression.parse(expression)
        } catch {
            guard error.code != .unknownSegment else { return }
            throw CommandLineError.usage(
                "\(command): \(error.message) (column \(error.column))\n  "
                    + error.pointing(into: expression).replacingOccurrences(of: "\n", with: "\n  "))
        }
    }
}
