import Foundation
import Tidings
import TidingsAPNsEmulator
import TidingsHTTP
import TidingsMetrics
import TidingsModel
import TidingsServer
import TidingsStore

/// A whole Tidings system on loopback, in this process: tidingsd (API and fan-out) on a SQLite store in
/// `directory`, an APNs emulator that trusts the app's freshly made provider key, and a small media server.
///
/// What `tidings demo` runs, and what end-to-end tests and `tidings-bench e2e` build on. Everything talks
/// over real HTTP: devices to the API, fan-out to the emulator, the service extension to the media server.
public final class LocalDeployment: Sendable {
    public struct Configuration: Sendable {
        /// Holds the store and the APNs key; the caller removes it.
        public var directory: URL
        public var appName = "tidings-demo"
        public var bundleID = "com.example.tidings.demo"
        /// The API's port; 0 picks a free one.
        public var apiPort = 0
        public var fanout = FanoutWorker.Configuration()
        public var logger = Logger.disabled()

        public init(directory: URL) {
            self.directory = directory
        }
    }

    public let configuration: Configuration
    /// tidingsd's store (the service's).
    public var store: any Store { service.store }
    public let app: AppRecord
    /// The key an app embeds (registration and events).
    public let appKey: String
    /// The key for sending and reading.
    public let serverKey: String
    /// The app's identity verification is required: devices log in with tokens its backend signs, and this
    /// plays that backend.
    public let userTokens: UserTokenProvider
    public let emulator: APNsEmulator
    public let apiURL: URL
    public let emulatorURL: URL
    public let mediaURL: URL
    /// tidingsd's metrics (`GET /metrics`).
    public var metrics: MetricsRegistry { service.metrics }
    private let service: TidingsService
    private let servers: [HTTPServer]

    /// Creates the store, the app, its keys and APNs credentials, and starts the three servers.
    /// - Throws: store, credential or `HTTPServerError` errors (a port in use, for example).
    public init(configuration: Configuration) throws {
        self.configuration = configuration
        let directory = configuration.directory
        let logger = configuration.logger
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let provisioned = try ProvisionedApp.create(
            store: try SQLiteStore(directory: directory), dataDirectory: directory, name: configuration.appName,
            bundleID: configuration.bundleID)
        app = provisioned.app
        appKey = provisioned.appKey
        serverKey = provisioned.serverKey
        userTokens = { userID in try provisioned.userToken(for: userID) }
        emulator = APNsEmulator(configuration: .init(keys: [provisioned.trustedKey], topics: [configuration.bundleID]))
        var started: [HTTPServer] = []
        do {
            let emulatorServer = try LoopbackServers.emulator(emulator, logger: logger)
            started.append(emulatorServer.server)
            emulatorURL = emulatorServer.url
            let mediaServer = try LoopbackServers.media(logger: logger)
            started.append(mediaServer.server)
            mediaURL = mediaServer.url

            // tidingsd as `tidingsd --apns-endpoint EMULATOR --insecure-media-host 127.0.0.1` runs it.
            var server = ServerConfiguration(dataDirectory: directory.path, fanout: configuration.fanout)
            server.apns.productionEndpoint = emulatorURL.absoluteString
            server.apns.sandboxEndpoint = emulatorURL.absoluteString
            server.insecureMediaHosts = ["127.0.0.1"]
            service = try TidingsService(configuration: server, logger: logger)
            let apiServer = try LoopbackServers.serve(
                service.handler, immediateHandler: service.immediateHandler, threads: 4, port: configuration.apiPort,
                logger: logger)
            started.append(apiServer.server)
            apiURL = apiServer.url
        } catch {
            for server in started { server.stopNow() }
            throw error
        }
        servers = started
        service.start()
    }

    /// The URL of a demo image on the media server.
    public func mediaURL(named name: String = "demo.png") -> URL {
        mediaURL.appendingPathComponent("media").appendingPathComponent(name)
    }

    /// Stops fan-out and the servers (requests in flight finish first).
    public func shutdown() async {
        await service.stop()
        for server in servers.reversed() { await server.shutdown() }
    }
}
