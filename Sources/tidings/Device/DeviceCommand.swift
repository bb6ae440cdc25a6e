import Foundation
import Tidings
import TidingsModel
import TidingsServer
import TidingsTesting

/// `tidings device simulate`: simulated iPhones, each running the real SDK, against a running tidingsd and
/// APNs emulator.
enum DeviceCommand {
    static let usage = """
        usage: tidings device simulate --count N --app-key KEY --topic BUNDLE_ID [options]

        Runs N simulated devices in this process. Each is a real TidingsClient with its own store under
        --directory: it registers with tidingsd, long-polls the APNs emulator for its pushes, runs the
        service extension (media fetched for real), taps, dismisses or ignores them as its seeded person
        decides, and uploads its events. Runs until Ctrl-C or --duration, then prints what the devices did.

          --count N             how many devices (1...20000)
          --server URL          tidingsd (default $TIDINGS_SERVER or http://127.0.0.1:8080)
          --app-key KEY         the app key the SDK embeds (default $TIDINGS_APP_KEY)
          --emulator URL        the APNs emulator (default $TIDINGS_APNS_EMULATOR or http://127.0.0.1:8443)
          --topic BUNDLE_ID     the app's bundle id, as pushes carry it in apns-topic
          --directory PATH      the devices' containers (default ./tidings-devices); a second run with the
                                same seed and directory reuses the same installations
          --seed N              tokens, consents and reactions are drawn from it (default 1)
          --environment E       sandbox or production (default production)
          --open P --button P --dismiss P --foreground P --ads P
                                behaviour probabilities, 0...1 (see docs/cli.md)
          --concurrency N       devices working at once (default 16)
          --duration SECONDS    stop after this long instead of waiting for Ctrl-C
          --json                print the final tally as JSON
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        guard let subcommand = arguments.first else {
            throw CommandLineError.usage("device: missing subcommand (simulate); run 'tidings device --help'")
        }
        switch subcommand {
        case "simulate": return try await simulate(Array(arguments.dropFirst()))
        case "help", "--help", "-h":
            Console.write(usage + "\n")
            return ExitCode.success
        default:
            throw CommandLineError.usage("device: unknown subcommand '\(subcommand)'; run 'tidings device --help'")
        }
    }

    static func simulate(_ rawArguments: [String]) async throws -> Int32 {
        if rawArguments.contains(where: { ["--help", "-h"].contains($0) }) {
            Console.write(usage + "\n")
            return ExitCode.success
        }
        let probabilities = ["open", "button", "dismiss", "foreground", "ads"]
        let arguments = try ArgumentList(
            rawArguments,
            options: Set(
                [
                    "count", "server", "app-key", "emulator", "topic", "directory", "seed", "environment",
                    "concurrency", "duration",
                ] + probabilities), flags: ["json"])
        if let extra = arguments.positionals.first {
            throw CommandLineError.usage("device simulate: unexpected argument '\(extra)'")
        }
        let environment = ProcessInfo.processInfo.environment
        let command = "device simulate"
        guard let count = try arguments.integer("count", in: 1...20_000, command: command) else {
            throw CommandLineError.usage("device simulate: --count N is required (a whole number from 1 to 20000)")
        }
        guard let appKey = arguments.option("app-key") ?? environment["TIDINGS_APP_KEY"] else {
            throw CommandLineError.usage("device simulate: --app-key KEY (or $TIDINGS_APP_KEY) is required")
        }
        guard let topic = arguments.option("topic") else {
            throw CommandLineError.usage("device simulate: --topic BUNDLE_ID is required")
        }
        let server = try url(
            arguments.option("server") ?? environment["TIDINGS_SERVER"] ?? "http://127.0.0.1:8080", option: "server")
        let emulator = try url(
            arguments.option("emulator") ?? environment["TIDINGS_APNS_EMULATOR"] ?? "http://127.0.0.1:8443",
            option: "emulator")
        let directory = URL(fileURLWithPath: arguments.option("directory") ?? "tidings-devices")

        var configuration = DeviceFleet.Configuration(
            count: count, serverURL: server, appKey: appKey, directory: directory)
        configuration.seed = try arguments.unsignedInteger("seed", command: command) ?? configuration.seed
        if let name = arguments.option("environment") {
            guard let value = APNsEnvironment(rawValue: name) else {
                throw CommandLineError.usage("device simulate: --environment must be sandbox or production")
            }
            configuration.environment = value
        }
        configuration.concurrency =
            try arguments.integer("concurrency", in: 1...1024, command: command) ?? configuration.concurrency
        let paths: [String: WritableKeyPath<DeviceBehaviour, Double>] = [
            "open": \.openProbability, "button": \.buttonProbability, "dismiss": \.dismissProbability,
            "foreground": \.foregroundProbability, "ads": \.adsConsentProbability,
        ]
        for name in probabilities {
            guard let text = arguments.option(name), let path = paths[name] else { continue }
            guard let value = Double(text) else {
                throw CommandLineError.usage("device simulate: --\(name) must be a number from 0 to 1")
            }
            configuration.behaviour[keyPath: path] = value
        }
        let duration = try arguments.duration("duration", command: command)

        let fleet: DeviceFleet
        do {
            fleet = try DeviceFleet(configuration: configuration)
        } catch {
            throw CommandLineError.usage("device simulate: \(error.description)")
        }
        let started = ContinuousClock.now
        Console.progress("registering \(count) devices with \(server.absoluteString) ")
        do {
            try await fleet.registerAll { done in
                if done % max(1, count / 10) == 0 { Console.progress(".") }
            }
        } catch {
            Console.progress("\n")
            throw CommandLineError.failure("device simulate: \(error.description)")
        }
        Console.progress(" done in \(String(format: "%.2f s", (ContinuousClock.now - started).seconds))\n")
        Console.progress("listening on \(emulator.absoluteString) for pushes to \(topic); Ctrl-C stops\n")
        fleet.start(feed: EmulatorHTTPPushFeed(endpoint: emulator, topic: topic))

        let reporter = Task {
            var last = FleetTally()
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(2))
                let tally = fleet.tally
                if tally != last {
                    Console.progress(
                        "received \(tally.received), delivered \(tally.delivered), opened \(tally.opened), "
                            + "buttons \(tally.actions), dismissed \(tally.dismissed)\n")
                    last = tally
                }
                if let error = fleet.feedError, tally == last { Console.progress("\(error.description)\n") }
            }
        }
        if let duration {
            try? await Task.sleep(for: duration)
        } else {
            await InterruptSignal.wait()
        }
        reporter.cancel()
        let tally = await fleet.stop()
        await fleet.flushPending()
        let failures = fleet.failures
        if arguments.flag("json") {
            var object = tally.json.objectValue ?? [:]
            object["devices"] = .integer(Int64(count))
            object["failures"] = .array(
                failures.map { ["device": .integer(Int64($0.deviceIndex)), "message": .string($0.message)] })
            Console.write(try JSONValue.object(object).serializedString(sortedKeys: true, prettyPrinted: true) + "\n")
        } else {
            Console.write(
                """
                \(count) devices: received \(tally.received), delivered \(tally.delivered) \
                (\(tally.mediaAttached) with media, \(tally.foreground) in the foreground), opened \(tally.opened), \
                buttons \(tally.actions), deep links \(tally.deeplinkOpens), web links \(tally.linkOpens), \
                dismissed \(tally.dismissed), silent \(tally.background)

                """)
            for failure in failures.prefix(5) { Console.error("device \(failure.deviceIndex): \(failure.message)") }
        }
        return failures.isEmpty ? ExitCode.success : ExitCode.failure
    }

    private static func url(_ text: String, option: String) throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil
        else { throw CommandLineError.usage("device simulate: --\(option) must be an http(s) URL; got '\(text)'") }
        return url
    }
}
