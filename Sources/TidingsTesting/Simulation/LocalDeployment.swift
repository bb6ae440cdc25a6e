import Foundation
import TidingsModel
import TidingsServer

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
    public let store: SQLiteStore
    public let app: AppRecord
    /// The key an app embeds (registration and events).
    public let appKey: String
    /// The key for sending and reading.
    public let serverKey: String
    public let emulator: APNsEmulator
    public let apiURL: URL
    public let emulatorURL: URL
    public let mediaURL: URL
    public let metrics: MetricsRegistry
    private let servers: [HTTPServer]
    private let fanout: FanoutService
    private let provider: AppAPNsProvider

    /// Creates the store, the app, its keys and APNs credentials, and starts the three servers.
    /// - Throws: store, credential or `HTTPServerError` errors (a port in use, for example).
    public init(configuration: Configuration) throws {
        self.configuration = configuration
        let directory = configuration.directory
        let logger = configuration.logger
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try SQLiteStore(directory: directory)
        let administration = AppAdministration(store: store)
        app = try administration.createApp(name: configuration.appName, bundleID: configuration.bundleID)
        appKey = try administration.createKey(app: app.id, kind: .app).secret
        serverKey = try administration.createKey(app: app.id, kind: .server).secret

        // A provider key made for this run, trusted by the emulator as Apple trusts a team's .p8 key.
        let key = ES256Key.generate()
        let keyID = "DEMOKEY001"
        let teamID = "DEMOTEAM01"
        let keyFile = directory.appendingPathComponent("AuthKey_\(keyID).p8")
        guard let pem = key.privateKeyPEM() else { preconditionFailure("a generated key has a private half") }
        try Data(pem.utf8).write(to: keyFile)
        let credentials = APNsCredentialsStore(dataDirectory: directory)
        _ = try credentials.save(appID: app.id, keyFile: keyFile.path, keyID: keyID, teamID: teamID)
        try? FileManager.default.removeItem(at: keyFile)

        emulator = APNsEmulator(
            configuration: .init(
                keys: [.init(keyID: keyID, teamID: teamID, publicKey: key.publicKey())],
                topics: [configuration.bundleID]))
        metrics = MetricsRegistry()
        var started: [HTTPServer] = []
        func serve(_ handler: @escaping HTTPHandler, port: Int = 0, threads: Int = 2) throws -> URL {
            var http = HTTPServer.Configuration()
            http.host = "127.0.0.1"
            http.port = port
            http.threadCount = threads
            let server = HTTPServer(configuration: http, handler: handler, logger: logger)
            let bound = try server.start()
            started.append(server)
            return URL(string: "http://127.0.0.1:\(bound)")!
        }
        do {
            emulatorURL = try serve(emulator.handler(logger: logger))
            let image = DemoImage.png()
            let media = Router(routes: [
                HTTPRoute("GET", "/media/{name}") { _ in
                    var headers = HTTPHeaders()
                    headers["Content-Type"] = "image/png"
                    return HTTPResponse(status: 200, headers: headers, body: image)
                }
            ])
            mediaURL = try serve(
                HTTPMiddleware.standard(
                    router: media, logger: logger, metrics: MetricsRegistry(), handlerTimeout: .seconds(10)))

            var apns = APNsClient.Configuration()
            apns.productionEndpoint = emulatorURL.absoluteString
            apns.sandboxEndpoint = emulatorURL.absoluteString
            provider = AppAPNsProvider(
                store: store, credentials: credentials, configuration: apns, metrics: metrics, logger: logger)
            var apiConfiguration = TidingsAPI.Configuration()
            apiConfiguration.insecureMediaHosts = ["127.0.0.1"]
            let api = TidingsAPI(
                store: store, configuration: apiConfiguration, logger: logger, provider: provider, registry: metrics)
            var router = api.router
            router.addOperationsRoutes(metrics: metrics)
            apiURL = try serve(
                HTTPMiddleware.standard(router: router, logger: logger, metrics: metrics, handlerTimeout: .seconds(30)),
                port: configuration.apiPort,
                threads: 4)
        } catch {
            for server in started { server.stopNow() }
            throw error
        }
        servers = started
        fanout = FanoutService(
            store: store, provider: provider, logger: logger, configuration: configuration.fanout, metrics: metrics)
        fanout.start()
    }

    /// The URL of a demo image on the media server.
    public func mediaURL(named name: String = "demo.png") -> URL {
        mediaURL.appendingPathComponent("media").appendingPathComponent(name)
    }

    /// Stops fan-out and the servers (requests in flight finish first).
    public func shutdown() async {
        await fanout.stop()
        provider.shutdown()
        for server in servers.reversed() { await server.shutdown() }
    }
}
