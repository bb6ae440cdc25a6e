import Foundation
import TidingsModel

/// `tidings audit`: the audit log, newest first, over `GET /v1/audit` with an admin key (docs/security.md,
/// "Audit log"): who changed what, with which credential, from where, and how it ended.
enum AuditCommand {
    static let usage = """
        usage: tidings audit [--limit N] [--cursor C] [--json]

        The audit log, newest first: every state-changing call by console operators, server keys and admin keys
        (app keys when tidingsd runs with --audit-app-keys on). --limit N entries per page (default 50); the
        page ends with the cursor of the next, for --cursor. --json prints the API's answer.

        \(ServerConnection.adminUsage)
        """

    static func run(_ rawArguments: [String]) async throws -> Int32 {
        if ["help", "--help", "-h"].contains(rawArguments.first ?? "") || ArgumentList.asksForHelp(rawArguments) {
            Console.write(usage + "\n")
            return ExitCode.success
        }
        let arguments = try ArgumentList(
            rawArguments, options: ServerConnection.adminOptionNames.union(["limit", "cursor"]), flags: ["json"])
        if let extra = arguments.positionals.first {
            throw CommandLineError.usage("audit: unexpected argument '\(extra)'")
        }
        var limit = "50"
        if let text = arguments.option("limit") {
            guard let value = Int(text), value > 0 else {
                throw CommandLineError.usage("audit: --limit must be a positive whole number")
            }
            limit = String(value)
        }
        let answer = try await AdminClient(arguments: arguments).client.json(
            "GET", ["v1", "audit"], query: [("limit", limit), ("cursor", arguments.option("cursor"))])
        try Console.writeAnswer(answer, json: arguments.flag("json")) { answer in
            text(answer["entries"]?.arrayValue ?? [], next: answer["next_cursor"]?.stringValue)
        }
        return ExitCode.success
    }

    /// Entries as a table: when, who (the operator, or the credential and key id), the call, its outcome.
    static func text(_ entries: [JSONValue], next: String?) -> String {
        var table = ColumnText([
            ("AT", .left), ("WHO", .left), ("ACTION", .left), ("TARGET", .left), ("APP", .left), ("STATUS", .right),
            ("ADDRESS", .left),
        ])
        for entry in entries {
            let who =
                entry["operator"]?.stringValue.map { "operator \($0)" }
                ?? "\(DisplayText.value(entry["credential"])) \(DisplayText.value(entry["key_id"]))"
            table.row([
                DisplayText.time(entry["at"]), who, DisplayText.value(entry["action"]),
                DisplayText.value(entry["target"]), DisplayText.value(entry["app_id"]),
                DisplayText.value(entry["status"]), DisplayText.value(entry["address"]),
            ])
        }
        var text = table.render() + "\(entries.count) entr\(entries.count == 1 ? "y" : "ies")\n"
        if let next { text += "more: tidings audit --cursor \(next)\n" }
        return text
    }
}
