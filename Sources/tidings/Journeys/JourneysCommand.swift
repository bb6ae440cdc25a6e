import Foundation
import TidingsModel

/// `tidings journeys list|show|create|validate|update|start|pause|archive`: journeys (docs/journeys.md), their
/// definitions and each step's numbers.
enum JourneysCommand {
    static let usage = """
        usage: tidings journeys list [--json]
               tidings journeys show JOURNEY_ID [--json]
               tidings journeys validate FILE [--json]
               tidings journeys create FILE [--json]
               tidings journeys update JOURNEY_ID FILE [--json]
               tidings journeys start|pause|archive JOURNEY_ID [--json]

        A journey is a JSON definition (docs/journeys.md): a trigger, an entry rule, exit events and up to 50
        steps (send, wait, branch, split, exit); FILE is its path, or - for standard input.
        validate checks a definition on the server, storing nothing, and lists every problem with its path
        (steps[2].wait); create and update validate first and store nothing unless the definition is valid.
        A new journey is a draft: start makes it active, pause holds everyone where they are, archive lets no
        one in and everyone in it finish. update stores a new version; people in the journey finish theirs.
        show prints each step with what it does and its numbers (entered, waiting, and for a send sent,
        skipped, delivered, opened, converted; exited), then the journey's exits by reason.
        Exit status 1 when the definition is invalid or the server refuses (409 invalid_state for a
        transition the journey's state does not allow).

        \(ServerConnection.usage)
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        guard let subcommand = arguments.first else {
            throw CommandLineError.usage(
                "journeys: missing subcommand (list, show, validate, create, update, start, pause, archive); "
                    + "run 'tidings journeys --help'")
        }
        let rest = Array(arguments.dropFirst())
        if ["help", "--help", "-h"].contains(subcommand) || ArgumentList.asksForHelp(rest) {
            Console.write(usage + "\n")
            return ExitCode.success
        }
        let arguments = try ArgumentList(rest, options: ServerConnection.optionNames, flags: ["json"])
        let json = arguments.flag("json")
        switch subcommand {
        case "list":
            try expect(arguments, [], subcommand)
            let answer = try await ServerClient(arguments: arguments).json("GET", ["v1", "journeys"])
            try Console.writeAnswer(answer, json: json) { JourneyText.list($0["journeys"]?.arrayValue ?? []) }
        case "show":
            try expect(arguments, ["JOURNEY_ID"], subcommand)
            let answer = try await ServerClient(arguments: arguments).json(
                "GET", ["v1", "journeys", arguments.positionals[0]])
            try Console.writeAnswer(answer, json: json, human: JourneyText.show)
        case "validate":
            try expect(arguments, ["FILE"], subcommand)
            let definition = try JourneyFile.read(arguments.positionals[0], command: "journeys validate")
            let answer = try await validate(definition, client: ServerClient(arguments: arguments))
            let valid = answer["valid"] == true
            if json || valid { try Console.writeAnswer(answer, json: json) { _ in "valid\n" } }
            return valid ? ExitCode.success : ExitCode.failure
        case "create", "update":
            let isUpdate = subcommand == "update"
            try expect(arguments, isUpdate ? ["JOURNEY_ID", "FILE"] : ["FILE"], subcommand)
            let definition = try JourneyFile.read(arguments.positionals.last!, command: "journeys \(subcommand)")
            let client = try ServerClient(arguments: arguments)
            let validation = try await validate(definition, client: client)
            guard validation["valid"] == true else {
                if json { try Console.writeJSON(validation) }
                return ExitCode.failure
            }
            let answer =
                isUpdate
                ? try await client.json("PUT", ["v1", "journeys", arguments.positionals[0]], body: definition)
                : try await client.json("POST", ["v1", "journeys"], body: definition)
            try Console.writeAnswer(answer, json: json) { answer in
                "\(isUpdate ? "Updated" : "Created") journey \(DisplayText.value(answer["journey_id"])): version "
                    + "\(DisplayText.value(answer["version"])), \(DisplayText.value(answer["state"]))\n"
            }
        case "start", "pause", "archive":
            try expect(arguments, ["JOURNEY_ID"], subcommand)
            let id = arguments.positionals[0]
            let answer = try await ServerClient(arguments: arguments).json(
                "POST", ["v1", "journeys", id, subcommand])
            let state =
                answer["state"]?.stringValue ?? ["start": "active", "pause": "paused"][subcommand] ?? "archived"
            try Console.writeAnswer(answer, json: json) { _ in "Journey \(id) is \(state)\n" }
        default:
            throw CommandLineError.usage(
                "journeys: unknown subcommand '\(subcommand)'; run 'tidings journeys --help'")
        }
        return ExitCode.success
    }

    /// `POST /v1/journeys:validate`; an invalid definition's problems go to standard error, one per line with
    /// its path, so that `create` and `update` say exactly what to fix.
    private static func validate(_ definition: JSONValue, client: ServerClient) async throws -> JSONValue {
        let answer = try await client.json("POST", ["v1", "journeys:validate"], body: definition)
        guard let valid = answer["valid"], valid == true || valid == false else {
            throw CommandLineError.failure("journeys: POST /v1/journeys:validate answered without valid")
        }
        if valid == false {
            let errors = answer["errors"]?.arrayValue ?? []
            Console.error("the journey is not valid: \(errors.count) problem(s)")
            for error in errors {
                let path = error["path"]?.stringValue ?? ""
                FileHandle.standardError.write(
                    Data("  \(path.isEmpty ? "(journey)" : path): \(DisplayText.value(error["message"]))\n".utf8))
            }
        }
        return answer
    }

    /// Refuses anything but exactly the positionals named in `names` (the words of the usage line).
    private static func expect(_ arguments: ArgumentList, _ names: [String], _ subcommand: String) throws {
        guard arguments.positionals.count == names.count else {
            let what = names.isEmpty ? "takes no arguments" : "give " + names.joined(separator: " and ")
            throw CommandLineError.usage("journeys \(subcommand): \(what); run 'tidings journeys --help'")
        }
    }
}
