import TidingsModel

/// `tidings apps` and `tidings keys`: apps and keys are managed on the store by `tidingsd`, not over the API
/// (a server key must not be able to mint keys), so these say where to go.
enum AdministrationPointer {
    /// Prints the `tidingsd` commands for `topic` (`apps` or `keys`); `--json` prints them as a document.
    static func run(_ topic: String, _ arguments: [String]) throws -> Int32 {
        let commands: [String] =
            topic == "apps"
            ? [
                "tidingsd apps create NAME --bundle-id ID [--json]", "tidingsd apps list [--json]",
                "tidingsd apps set-apns APP --key-file F --key-id K --team-id T [--json]",
            ]
            : [
                "tidingsd keys create --app APP --kind app|server [--json]", "tidingsd keys list [--app APP] [--json]",
                "tidingsd keys revoke KEY_ID [--json]",
            ]
        let note =
            "\(topic) are managed by tidingsd on its store (run where its data directory is, with the same "
            + "--data-dir or TIDINGS_DATA_DIR), not over the API:"
        if arguments.contains("--json") {
            try Console.writeJSON(["note": .string(note), "commands": .array(commands.map(JSONValue.string))])
        } else {
            Console.write(note + "\n" + commands.map { "  " + $0 + "\n" }.joined())
        }
        return ExitCode.success
    }
}
