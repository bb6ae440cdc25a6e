import Foundation
import TidingsAPNsEmulator
import TidingsCrypto
import TidingsHTTP
import TidingsMetrics
import TidingsModel
import TidingsPush
import TidingsServer

/// `tidingsd apns-emulator`: serves the APNs emulator (Apple's provider API over HTTP/1.1) until a signal.
///
/// ```
/// tidingsd apns-emulator [--listen HOST:PORT] [--key-id K --team-id T (--public-key FILE | --key-file FILE)]
///                        [--topic BUNDLE_ID]... [--log-level LEVEL]
/// ```
/// Without a key, `authorization` is not checked; without a topic, any topic is allowed.
enum EmulatorCommand {
    static let name = "apns-emulator"

    static let usage = """
        usage: tidingsd apns-emulator [--listen HOST:PORT] [--key-id K --team-id T (--public-key FILE | --key-file FILE)]
                                      [--topic BUNDLE_ID]... [--log-level LEVEL]
        """

    /// Parsed options.
    struct Options {
        var host = "127.0.0.1"
        var port = 2197
        var keys: [ES256Verifier.TrustedKey] = []
        var topics: Set<String> = []
        var logLevel = Logger.Level.info
    }

    /// Starts the emulator and returns nil (the caller parks the main thread), or an exit status.
    static func run(_ arguments: [String]) -> Int32? {
        let options: Options
        do {
            options = try parse(arguments)
        } catch let error as AdminUsageError {
            FileHandle.standardError.write(Data("tidingsd: \(error.message)\n\(usage)\n".utf8))
            return 2
        } catch let error as APNsCredentialError {
            FileHandle.standardError.write(Data("tidingsd: \(error.message)\n".utf8))
            return 1
        } catch {
            FileHandle.standardError.write(Data("tidingsd: \(error)\n".utf8))
            return 1
        }
        signal(SIGPIPE, SIG_IGN)
        let logHandler = BufferedLogHandler()
        let logger = Logger(label: "apns-emulator", level: options.logLevel, handler: logHandler)
        let emulator = APNsEmulator(configuration: .init(keys: options.keys, topics: options.topics))
        let configuration = HTTPServer.Configuration(host: options.host, port: options.port)
        let metrics = MetricsRegistry()
        let server = HTTPServer(
            configuration: configuration,
            handler: emulator.handler(
                logger: logger, metrics: metrics, handlerTimeout: configuration.handlerTimeout),
            logger: logger, metrics: metrics)
        ShutdownSignals.install(servers: [server], logger: logger, flush: logHandler.flush)
        do {
            let port = try server.start()
            let host = options.host.contains(":") ? "[\(options.host)]" : options.host
            let checks = options.keys.isEmpty ? "not checked" : "ES256, key ids \(options.keys.map(\.keyID).sorted())"
            let topics = options.topics.isEmpty ? "any" : options.topics.sorted().joined(separator: ", ")
            FileHandle.standardOutput.write(
                Data(
                    """
                    tidingsd apns-emulator listening on http://\(host):\(port) (HTTP/1.1)
                      push:     POST http://\(host):\(port)/3/device/TOKEN
                      provider tokens: \(checks); topics: \(topics)
                      devices:  GET http://\(host):\(port)/emulator/devices/TOKEN/notifications?wait=SECONDS
                      faults:   POST http://\(host):\(port)/emulator/faults
                      stats:    GET http://\(host):\(port)/emulator/stats

                    """.utf8))
            return nil
        } catch let error as HTTPServerError {
            FileHandle.standardError.write(Data("tidingsd: \(error.message)\n".utf8))
            return 1
        } catch {
            FileHandle.standardError.write(Data("tidingsd: \(error)\n".utf8))
            return 1
        }
    }

    static func parse(_ arguments: [String]) throws -> Options {
        let valued: Set<String> = ["listen", "key-id", "team-id", "public-key", "key-file", "log-level", "topic"]
        var values: [String: String] = [:]
        var options = Options()
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            guard argument.hasPrefix("--") else { throw AdminUsageError("unexpected argument '\(argument)'") }
            var name = String(argument.dropFirst(2))
            var value: String?
            if let equals = name.firstIndex(of: "=") {
                value = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard valued.contains(name) else { throw AdminUsageError("unknown option --\(name)") }
            if value == nil {
                index += 1
                guard index < arguments.count else { throw AdminUsageError("--\(name) needs a value") }
                value = arguments[index]
            }
            index += 1
            if name == "topic" {
                options.topics.insert(value!)
            } else {
                values[name] = value
            }
        }
        if let listen = values["listen"] {
            guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]),
                (0...65535).contains(port)
            else {
                throw AdminUsageError("--listen needs HOST:PORT, for example 127.0.0.1:2197")
            }
            options.host = String(listen[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            options.port = port
        }
        if let level = values["log-level"] {
            guard let value = Logger.Level(name: level) else { throw AdminUsageError("unknown log level '\(level)'") }
            options.logLevel = value
        }
        switch (values["key-id"], values["team-id"], values["public-key"], values["key-file"]) {
        case (nil, nil, nil, nil):
            break
        case (let keyID?, let teamID?, let file?, nil), (let keyID?, let teamID?, nil, let file?):
            guard APNsProviderToken.isValidIdentifier(keyID), APNsProviderToken.isValidIdentifier(teamID) else {
                throw AdminUsageError("--key-id and --team-id must be 10 letters or digits")
            }
            let key = try ES256Key(contentsOfFile: file).publicKey()
            options.keys = [.init(keyID: keyID, teamID: teamID, publicKey: key)]
        default:
            throw AdminUsageError("--key-id, --team-id and one of --public-key or --key-file go together")
        }
        return options
    }
}
