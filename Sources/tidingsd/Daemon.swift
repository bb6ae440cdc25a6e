import Foundation
import TidingsHTTP
import TidingsModel
import TidingsServer

/// The `tidingsd` process: resolves its configuration, then serves or runs an admin command.
///
/// Kept out of `main.swift` so that nothing here is isolated to the main actor by accident.
enum Daemon {
    /// The exit status, or nil once the server is running (the caller then parks the main thread).
    static func main(arguments: [String], environment: [String: String]) -> Int32? {
        let readFile: (String) throws -> Data = { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        do {
            if arguments.first == EmulatorCommand.name { return EmulatorCommand.run(Array(arguments.dropFirst())) }
            if arguments.first == UsersCommand.name {
                let (configuration, remaining) = try ServerConfiguration.resolveForAdministration(
                    arguments: Array(arguments.dropFirst()), environment: environment, readFile: readFile)
                return UsersCommand.run(remaining, configuration: configuration, environment: environment)
            }
            if let first = arguments.first, AdminCommand.names.contains(first) {
                let (configuration, remaining) = try ServerConfiguration.resolveForAdministration(
                    arguments: Array(arguments.dropFirst()), environment: environment, readFile: readFile)
                return try AdminCommand.run([first] + remaining, configuration: configuration)
            }
            if arguments.first == SecretsCommand.name {
                let (configuration, remaining) = try ServerConfiguration.resolveForAdministration(
                    arguments: Array(arguments.dropFirst()), environment: environment, readFile: readFile)
                return SecretsCommand.run(remaining, configuration: configuration)
            }
            if let first = arguments.first, StoreCommand.names.contains(first) {
                let (configuration, remaining) = try ServerConfiguration.resolveForAdministration(
                    arguments: Array(arguments.dropFirst()), environment: environment, readFile: readFile)
                return StoreCommand.run([first] + remaining, configuration: configuration)
            }
            switch try ServerConfiguration.resolve(arguments: arguments, environment: environment, readFile: readFile) {
            case .help:
                FileHandle.standardOutput.write(Data(ServerConfiguration.usage.utf8))
                return 0
            case .serve(let configuration):
                try serve(configuration)
                return nil
            }
        } catch let error as ServerConfigurationError {
            complain("\(error.message)\nRun tidingsd --help for the options.")
            return 2
        } catch let error as HTTPServerError {
            complain(error.message)
            return 1
        } catch {
            complain(String(describing: error))
            return 1
        }
    }

    /// Starts the server and returns; the process then lives on in `dispatchMain()` until a signal.
    static func serve(_ configuration: ServerConfiguration) throws {
        // A log reader that goes away must not kill the server with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        let logHandler = BufferedLogHandler()
        let logger = Logger(label: "tidingsd", level: configuration.logLevel, handler: logHandler)
        let service = try TidingsService(configuration: configuration, logger: logger)
        let server = HTTPServer(
            configuration: configuration.http, handler: service.handler,
            immediateHandler: service.immediateHandler, logger: logger, metrics: service.metrics)
        let adminServer = configuration.adminHTTP.map {
            HTTPServer(configuration: $0, handler: service.adminHandler, logger: logger, metrics: service.metrics)
        }
        // Signals are caught before the banner announces the server: a SIGTERM sent as soon as the
        // address is known must not fall in a window where it is ignored and lost. The API server stops
        // first; the admin one keeps answering probes and scrapes while it drains.
        ShutdownSignals.install(
            servers: [server] + (adminServer.map { [$0] } ?? []), logger: logger, stopWork: { await service.stop() },
            flush: logHandler.flush)
        service.start()
        let port = try server.start()
        let host = configuration.http.host.contains(":") ? "[\(configuration.http.host)]" : configuration.http.host
        var metricsURL = "http://\(host):\(port)/metrics"
        if let adminServer {
            let adminPort = try adminServer.start()
            let adminHost = adminServer.configuration.host
            metricsURL = "http://\(adminHost.contains(":") ? "[\(adminHost)]" : adminHost):\(adminPort)/metrics"
        }
        let scrape =
            configuration.metricsToken == nil
            ? "curl \(metricsURL)" : "curl -H 'Authorization: Bearer TOKEN' \(metricsURL)"
        FileHandle.standardOutput.write(
            Data(
                """
                tidingsd listening on http://\(host):\(port) (data in \(URL(fileURLWithPath: configuration.dataDirectory).path))
                  health:  curl http://\(host):\(port)/healthz
                  ready:   curl http://\(host):\(port)/readyz
                  metrics: \(scrape)
                  create an app:  tidingsd apps create NAME --bundle-id ID
                  create keys:    tidingsd keys create --app APP --kind app|server
                Stop with Ctrl-C or SIGTERM (requests in flight get \
                \(String(format: "%g", configuration.http.shutdownGracePeriod.seconds)) s to finish).

                """.utf8))
        logger.notice("listening", metadata: ["host": configuration.http.host, "port": String(port)])
        // Where the metrics are, and whether they are guarded, is what an operator checks first after a
        // change of flags; the token itself is never logged.
        logger.notice(
            "metrics served",
            metadata: [
                "url": metricsURL, "token": configuration.metricsToken == nil ? "none" : "required",
                "address": adminServer == nil ? "api" : "admin",
            ])
    }

    static func complain(_ message: String) {
        FileHandle.standardError.write(Data("tidingsd: \(message)\n".utf8))
    }
}
