import Foundation
import Tidings
import TidingsModel
import TidingsServer
import TidingsTesting

/// `tidings demo`: the whole system on this machine, in one command.
///
/// It starts tidingsd (API and fan-out) on a temporary SQLite store with the APNs emulator and a media
/// server, creates an app and keys, registers simulated devices that each run the real SDK, sends a rich
/// campaign, waits for the devices' events and prints the funnel beside what the devices did; then a Live
/// Activity, a local-time message and an abandoned-cart journey whose step numbers must equal the devices'.
enum DemoCommand {
    static let usage = """
        usage: tidings demo [--devices N] [--seed N] [--keep] [--port N] [--timeout SECONDS] [--json]

        Runs tidingsd, the APNs emulator, a media server and N simulated devices (default 25) on this
        machine, sends a rich campaign (image, two buttons, a deep link) and prints its funnel, then runs
        a Live Activity, a local-time message and an abandoned-cart journey (each step's numbers printed).

          --devices N        how many simulated devices (1...20000)
          --seed N           their behaviour is drawn from this seed (default 1): same seed, same run
          --keep             leave everything running afterwards and print how to reach it (Ctrl-C stops)
          --port N           the API's port (default: a free one)
          --timeout SECONDS  give up waiting after this long (default 120)
          --json             print the report as JSON on standard output

        Exit status: 0 when the server's funnel and each journey step equal what the devices did, 1 otherwise.
        """

    struct Options {
        var devices = 25
        var seed: UInt64 = 1
        var keep = false
        var port = 0
        var timeout: Duration = .seconds(120)
        var json = false
    }

    static func run(_ rawArguments: [String]) async throws -> Int32 {
        if rawArguments.contains(where: { ["--help", "-h", "help"].contains($0) }) {
            Console.write(usage + "\n")
            return ExitCode.success
        }
        let options = try parse(rawArguments)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tidings-demo-\(UUID().uuidString.prefix(8))")
        var configuration = LocalDeployment.Configuration(directory: directory)
        configuration.apiPort = options.port
        let deployment: LocalDeployment
        do {
            deployment = try LocalDeployment(configuration: configuration)
        } catch {
            throw CommandLineError.failure("demo: cannot start the local system: \(error)")
        }
        let outcome: Result<Int32, any Error>
        do {
            outcome = .success(try await DemoRun(deployment: deployment, options: options).run())
        } catch {
            outcome = .failure(error)
        }
        await deployment.shutdown()
        // --keep leaves the data of a run that finished; a failed run leaves nothing behind.
        if !options.keep || (try? outcome.get()) == nil { try? FileManager.default.removeItem(at: directory) }
        return try outcome.get()
    }

    static func parse(_ rawArguments: [String]) throws -> Options {
        let arguments = try ArgumentList(
            rawArguments, options: ["devices", "seed", "port", "timeout"], flags: ["keep", "json"])
        if let extra = arguments.positionals.first {
            throw CommandLineError.usage("demo: unexpected argument '\(extra)'")
        }
        var options = Options()
        options.keep = arguments.flag("keep")
        options.json = arguments.flag("json")
        options.devices = try arguments.integer("devices", in: 1...20_000, command: "demo") ?? options.devices
        options.seed = try arguments.unsignedInteger("seed", command: "demo") ?? options.seed
        options.port = try arguments.integer("port", in: 0...65_535, command: "demo") ?? options.port
        options.timeout = try arguments.duration("timeout", command: "demo") ?? options.timeout
        return options
    }
}
