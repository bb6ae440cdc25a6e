import Foundation
import TidingsCampaigns
import TidingsForwarding
import TidingsHTTP
import TidingsModel
import TidingsPush

/// Everything `tidingsd` needs to start: where to listen, where the data lives, how much to log, limits.
///
/// Resolved by ``resolve(arguments:environment:readFile:)`` from, in rising precedence: defaults, a JSON
/// config file (`--config FILE` or `TIDINGS_CONFIG`), environment variables, then command-line flags.
public struct ServerConfiguration: Sendable, Equatable {
    /// The listening address and the HTTP limits.
    public var http: HTTPServer.Configuration
    /// The store's directory (the SQLite store, and APNs and FCM credentials); created when missing.
    public var dataDirectory: String
    /// A PostgreSQL connection string (`--store postgres://...`): the store lives there instead of in the data
    /// directory's SQLite file. Nil: SQLite.
    public var postgresStore: String?
    /// At most this many connections to PostgreSQL per instance, besides its cache-invalidation listener
    /// (`--store-connections`); nil: the store's default (``PostgresStore/Configuration/maximumConnections``).
    public var postgresConnections: Int?
    public var logLevel: Logger.Level
    /// Where pushes go: Apple's hosts unless overridden (an APNs emulator for local development).
    public var apns: APNsClient.Configuration
    /// How the fan-out workers claim and send.
    public var fanout: FanoutWorker.Configuration
    /// Where FCM sends go: Google unless overridden (a local stand-in).
    public var fcm = FCMClient.Configuration()
    /// Hosts whose media messages may name with `http://` (a media server on a developer's machine).
    public var insecureMediaHosts: Set<String> = []
    /// How long a message lives when it gives neither `expiration` nor `ttl` (`--default-ttl`); zero: now or never.
    public var defaultTimeToLive = MessageRequest.defaultTimeToLive
    /// How often every app gets an uninstall check, spread over the interval; nil runs none on a schedule.
    public var uninstallCheckInterval: Duration?
    /// How instances sharing a PostgreSQL store tell each other they are alive (`--instance-timeout`).
    public var cluster = ClusterMembership.Configuration()
    /// Events older than this many days are removed once a day (`--event-retention`); nil keeps them.
    public var eventRetentionDays: Int?
    /// A second address serving only `/metrics`, `/healthz` and `/readyz` (`--admin-listen`); when set,
    /// `/metrics` leaves the API address. Nil keeps everything on the API address.
    public var adminHTTP: HTTPServer.Configuration?
    /// The token `/metrics` requires as `Authorization: Bearer TOKEN`, wherever it is served; nil leaves
    /// it open. Never logged or printed (its description is `<redacted>`).
    public var metricsToken: BearerToken?
    /// How long a `/readyz` report is reused, so that load balancers polling it cannot load the store.
    public var readinessCacheDuration: Duration = .seconds(2)
    /// Whether this process forwards events to the apps' destinations (`--forwarding on|off`).
    public var forwardingEnabled = true
    /// How the forwarding worker batches, retries and judges health.
    public var forwarding = ForwardingWorker.Configuration()
    /// Whether a destination failing for longer than ``ForwardingWorker/Configuration/unhealthyAfter`` fails
    /// `/readyz` (`--forwarding-readiness on|off`); off leaves it to `/metrics` when a balancer polls `/readyz`.
    public var forwardingAffectsReadiness = true
    /// The proxies whose forwarding header names the client address (`--trusted-proxy`, `--forwarded-header`).
    public var trustedProxies = TrustedProxies()
    /// The web console's sessions: timeouts, `Secure` cookies, accepted origins.
    public var consoleSessions = ConsoleSessionSettings()
    /// The key that encrypts the store's secrets (`--secrets-key-file`, `TIDINGS_SECRETS_KEY`); nil: see
    /// ``openStore(logger:)``.
    public var secretsKey: SecretsKeySource?
    /// Audit entries older than this many days are removed (`--audit-retention-days`).
    public var auditRetentionDays = 365
    /// Whether writes made with app keys are audited too (`--audit-app-keys`).
    public var auditsAppKeyWrites = false

    /// APNs connections per app and environment at most, by default: one until its streams are all busy, then
    /// more with the load (`--apns-connections`).
    public static let defaultAPNsConnections = 4

    /// The APNs client's settings tidingsd starts from: Apple's hosts, up to ``defaultAPNsConnections``.
    public static var defaultAPNs: APNsClient.Configuration {
        var apns = APNsClient.Configuration()
        apns.maximumConnectionsPerHost = defaultAPNsConnections
        return apns
    }

    public init(
        http: HTTPServer.Configuration = HTTPServer.Configuration(), dataDirectory: String = "./tidings-data",
        logLevel: Logger.Level = .info, apns: APNsClient.Configuration = ServerConfiguration.defaultAPNs,
        fanout: FanoutWorker.Configuration = FanoutWorker.Configuration()
    ) {
        self.http = http
        self.dataDirectory = dataDirectory
        self.logLevel = logLevel
        self.apns = apns
        self.fanout = fanout
    }

    /// What the command line asks for.
    public enum Invocation: Sendable, Equatable {
        case serve(ServerConfiguration)
        case help
    }

    /// One setting: its flag, environment variable and config-file key.
    struct Setting: Sendable {
        var flag: String
        var environment: String
        var fileKey: String
        var help: String
        var apply: @Sendable (inout ServerConfiguration, String) -> Bool
        /// A secret's value never appears in an error message.
        var secret = false
    }

    /// `--store-connections`: at least two, so that the upserts' group commits always leave one connection to
    /// every other call; at most a thousand, which catches a typo.
    static let postgresConnectionRange = 2...1_000

    /// The admin server's limits: a scraper and a few probes, never app traffic.
    static func adminServer(host: String, port: Int) -> HTTPServer.Configuration {
        HTTPServer.Configuration(
            host: host, port: port, maximumBodyBytes: 65_536, maximumConnections: 64, threadCount: 2)
    }

    /// Every setting: the server's, the console's (ServerConfiguration+Console.swift), secrets at rest
    /// (ServerConfiguration+Secrets.swift), then the audit log's (ServerConfiguration+Audit.swift).
    static var settings: [Setting] { serverSettings + consoleSettings + secretsSettings + auditSettings }

    static let serverSettings: [Setting] = [
        Setting(
            flag: "listen", environment: "TIDINGS_LISTEN", fileKey: "listen",
            help: "HOST:PORT to listen on ([::1]:PORT for IPv6; port 0 picks one)",
            apply: { configuration, text in
                guard let (host, port) = parseListen(text) else { return false }
                configuration.http.host = host
                configuration.http.port = port
                return true
            }),
        Setting(
            flag: "admin-listen", environment: "TIDINGS_ADMIN_LISTEN", fileKey: "admin_listen",
            help:
                "HOST:PORT of a second server for /metrics, /healthz and /readyz; /metrics then leaves the API address",
            apply: { configuration, text in
                guard let (host, port) = parseListen(text) else { return false }
                configuration.adminHTTP = adminServer(host: host, port: port)
                return true
            }),
        Setting(
            flag: "metrics-token", environment: "TIDINGS_METRICS_TOKEN", fileKey: "metrics_token",
            help:
                "a secret /metrics requires as 'Authorization: Bearer TOKEN' (at least \(BearerToken.minimumLength) visible ASCII characters; prefer the variable or the file, which ps does not show)",
            apply: { configuration, text in
                guard let token = BearerToken(text) else { return false }
                configuration.metricsToken = token
                return true
            }, secret: true),
        Setting(
            flag: "store", environment: "TIDINGS_STORE", fileKey: "store",
            help:
                "sqlite (the default: a file in the data directory) or a PostgreSQL connection string, postgres://USER@HOST/DB or host=... dbname=...",
            apply: { configuration, text in
                if text == "sqlite" {
                    configuration.postgresStore = nil
                    return true
                }
                // libpq's two forms: a URL, or keyword=value pairs.
                guard text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") || text.contains("=") else {
                    return false
                }
                configuration.postgresStore = text
                return true
            }, secret: true),
        Setting(
            flag: "store-connections", environment: "TIDINGS_STORE_CONNECTIONS", fileKey: "store_connections",
            help:
                "connections to PostgreSQL one instance opens at most, \(postgresConnectionRange.lowerBound) to \(postgresConnectionRange.upperBound) (default 10; its cache-invalidation listener takes one more)",
            apply: { configuration, text in
                guard let value = Int(text), postgresConnectionRange.contains(value) else { return false }
                configuration.postgresConnections = value
                return true
            }),
        Setting(
            flag: "data-dir", environment: "TIDINGS_DATA_DIR", fileKey: "data_dir", help: "the store's directory",
            apply: { configuration, text in
                guard !text.isEmpty else { return false }
                configuration.dataDirectory = text
                return true
            }),
        Setting(
            flag: "log-level", environment: "TIDINGS_LOG_LEVEL", fileKey: "log_level",
            help: "trace, debug, info, notice, warning, error or critical",
            apply: { configuration, text in
                guard let level = Logger.Level(name: text) else { return false }
                configuration.logLevel = level
                return true
            }),
        Setting(
            flag: "max-body-bytes", environment: "TIDINGS_MAX_BODY_BYTES", fileKey: "max_body_bytes",
            help: "largest request body accepted",
            integerIn: 1...Int.max, into: \.http.maximumBodyBytes),
        Setting(
            flag: "connection-memory", environment: "TIDINGS_CONNECTION_MEMORY", fileKey: "connection_memory",
            help: "bytes per connection for the request line and headers (431 above)",
            integerIn: 4096...Int.max, into: \.http.connectionMemoryLimit),
        Setting(
            flag: "handler-timeout", environment: "TIDINGS_HANDLER_TIMEOUT", fileKey: "handler_timeout",
            help: "seconds a request may take before 503",
            apply: { configuration, text in
                guard let value = positiveSeconds(text) else { return false }
                configuration.http.handlerTimeout = value
                return true
            }),
        Setting(
            flag: "connection-timeout", environment: "TIDINGS_CONNECTION_TIMEOUT", fileKey: "connection_timeout",
            help: "whole seconds an idle connection stays open",
            apply: { configuration, text in
                guard let value = Int(text), value > 0 else { return false }
                configuration.http.connectionTimeout = .seconds(value)
                return true
            }),
        Setting(
            flag: "max-connections", environment: "TIDINGS_MAX_CONNECTIONS", fileKey: "max_connections",
            help: "connections open at once",
            integerIn: 1...Int.max, into: \.http.maximumConnections),
        Setting(
            flag: "max-connections-per-address", environment: "TIDINGS_MAX_CONNECTIONS_PER_ADDRESS",
            fileKey: "max_connections_per_address",
            help: "connections one client address may hold open (default 64; 0: no cap; behind a proxy, raise it)",
            integerIn: 0...Int.max, into: \.http.maximumConnectionsPerAddress),
        Setting(
            flag: "request-header-timeout", environment: "TIDINGS_REQUEST_HEADER_TIMEOUT",
            fileKey: "request_header_timeout",
            help: "seconds a request's line and headers may take from its first byte before 408 (default 10)",
            apply: { configuration, text in
                guard let value = positiveSeconds(text) else { return false }
                configuration.http.requestHeaderTimeout = value
                return true
            }),
        Setting(
            flag: "request-body-grace", environment: "TIDINGS_REQUEST_BODY_GRACE", fileKey: "request_body_grace",
            help: "seconds a request body may take before --min-body-rate applies (default 10)",
            apply: { configuration, text in
                guard let value = positiveSeconds(text) else { return false }
                configuration.http.requestBodyGracePeriod = value
                return true
            }),
        Setting(
            flag: "min-body-rate", environment: "TIDINGS_MIN_BODY_RATE", fileKey: "min_body_rate",
            help: "bytes per second a request body must keep up after the grace period, or 408 (default 1024; 0: off)",
            integerIn: 0...Int.max, into: \.http.minimumBodyBytesPerSecond),
        Setting(
            flag: "response-grace", environment: "TIDINGS_RESPONSE_GRACE", fileKey: "response_grace",
            help:
                "seconds a response may wait on a client that does not read before --min-response-rate applies (default 10)",
            apply: { configuration, text in
                guard let value = positiveSeconds(text) else { return false }
                configuration.http.responseGracePeriod = value
                return true
            }),
        Setting(
            flag: "min-response-rate", environment: "TIDINGS_MIN_RESPONSE_RATE", fileKey: "min_response_rate",
            help:
                "bytes per second a client must take a response at after the grace period, or the connection is cut (default 1024; 0: off)",
            integerIn: 0...Int.max, into: \.http.minimumResponseBytesPerSecond),
        Setting(
            flag: "max-requests-per-connection", environment: "TIDINGS_MAX_REQUESTS_PER_CONNECTION",
            fileKey: "max_requests_per_connection",
            help:
                "requests one keep-alive connection may carry; the last is answered with Connection: close (default 1000; 0: no cap)",
            integerIn: 0...Int.max, into: \.http.maximumRequestsPerConnection),
        Setting(
            flag: "max-connection-age", environment: "TIDINGS_MAX_CONNECTION_AGE", fileKey: "max_connection_age",
            help: "seconds after which a connection's next response closes it (default 3600; 0: no cap)",
            apply: { configuration, text in
                guard let value = Double(text), value >= 0, value.isFinite else { return false }
                configuration.http.maximumConnectionAge = .milliseconds(Int64((value * 1000).rounded()))
                return true
            }),
        Setting(
            flag: "threads", environment: "TIDINGS_THREADS", fileKey: "threads",
            help: "network threads (default: three per core)",
            integerIn: 1...256, into: \.http.threadCount),
        Setting(
            flag: "worker-threads", environment: "TIDINGS_WORKER_THREADS", fileKey: "worker_threads",
            help: "threads that write event batches, so network threads never wait for the store (default 32)",
            integerIn: 1...1024, into: \.http.workerThreadCount),
        Setting(
            flag: "apns-endpoint", environment: "TIDINGS_APNS_ENDPOINT", fileKey: "apns_endpoint",
            help: "send every push here instead of Apple's hosts (an APNs emulator: http://127.0.0.1:PORT)",
            apply: { configuration, text in
                guard let endpoint = httpBase(text) else { return false }
                configuration.apns.productionEndpoint = endpoint
                configuration.apns.sandboxEndpoint = endpoint
                return true
            }),
        Setting(
            flag: "apns-ca-file", environment: "TIDINGS_APNS_CA_FILE", fileKey: "apns_ca_file",
            help: "PEM file of the certificate authorities to trust for the APNs endpoint",
            apply: { configuration, text in
                guard !text.isEmpty else { return false }
                configuration.apns.caBundlePath = text
                return true
            }),
        Setting(
            flag: "apns-connections", environment: "TIDINGS_APNS_CONNECTIONS", fileKey: "apns_connections",
            help:
                "HTTP/2 connections per app and APNs environment at most (1 to 64, default 4): another opens while every open one has all its streams busy, and one idle for a minute closes",
            apply: { configuration, text in
                guard let value = Int(text), (1...64).contains(value) else { return false }
                configuration.apns.maximumConnectionsPerHost = value
                return true
            }),
        Setting(
            flag: "apns-streams", environment: "TIDINGS_APNS_STREAMS", fileKey: "apns_streams",
            help:
                "pushes one APNs connection carries at once (1 to 1000, default 1000, what Apple announces); set it to what the host announces, since a connection counts as full at this many",
            integerIn: 1...1000, into: \.apns.maxConcurrentStreams),
        Setting(
            flag: "fcm-endpoint", environment: "TIDINGS_FCM_ENDPOINT", fileKey: "fcm_endpoint",
            help: "send FCM messages here instead of https://fcm.googleapis.com (a local stand-in)",
            apply: { configuration, text in
                guard let endpoint = httpBase(text) else { return false }
                configuration.fcm.endpoint = endpoint
                return true
            }),
        Setting(
            flag: "fcm-token-uri", environment: "TIDINGS_FCM_TOKEN_URI", fileKey: "fcm_token_uri",
            help: "exchange FCM service-account assertions here instead of the account's token_uri",
            apply: { configuration, text in
                guard httpBase(text) != nil else { return false }
                configuration.fcm.tokenURI = text
                return true
            }),
        Setting(
            flag: "insecure-media-host", environment: "TIDINGS_INSECURE_MEDIA_HOST", fileKey: "insecure_media_host",
            help: "a host whose media messages may name over plain http (local development only)",
            apply: { configuration, text in
                guard !text.isEmpty, !text.contains("/") else { return false }
                configuration.insecureMediaHosts.insert(text.lowercased())
                return true
            }),
        Setting(
            flag: "trusted-proxy", environment: "TIDINGS_TRUSTED_PROXY", fileKey: "trusted_proxy",
            help:
                "a proxy (CIDR: 10.0.0.0/8, fd00::/8, or one address) whose forwarding header names the client; repeat the flag, or separate with commas",
            apply: { configuration, text in
                for part in text.split(separator: ",", omittingEmptySubsequences: false) {
                    let cidr = part.trimmingCharacters(in: .whitespaces)
                    guard let network = try? IPNetwork(parsing: cidr) else { return false }
                    configuration.trustedProxies.add(network)
                }
                return true
            }),
        Setting(
            flag: "forwarded-header", environment: "TIDINGS_FORWARDED_HEADER", fileKey: "forwarded_header",
            help:
                "the header trusted proxies write the client into: x-forwarded-for (the default) or forwarded (RFC 7239); the other is ignored",
            apply: { configuration, text in
                guard let header = TrustedProxies.Header(rawValue: text.lowercased()) else { return false }
                configuration.trustedProxies.header = header
                return true
            }),
        Setting(
            flag: "fanout-in-flight", environment: "TIDINGS_FANOUT_IN_FLIGHT", fileKey: "fanout_in_flight",
            help: "pushes each fan-out worker keeps in flight (default 1000)",
            integerIn: 1...10_000, into: \.fanout.maximumInFlight),
        Setting(
            flag: "fanout-lease", environment: "TIDINGS_FANOUT_LEASE", fileKey: "fanout_lease",
            help: "seconds a claimed chunk stays with its worker; after a crash it is resumed this late (default 300)",
            apply: { configuration, text in
                guard let value = positiveSeconds(text) else { return false }
                configuration.fanout.lease = value
                return true
            }),
        Setting(
            flag: "default-ttl", environment: "TIDINGS_DEFAULT_TTL", fileKey: "default_ttl",
            help:
                "seconds a message lives when it gives no ttl or expiration (default 259200, three days; 0: now or never)",
            apply: { configuration, text in
                guard let value = Int(text), (0...MessageRequest.maximumTTLSeconds).contains(Int64(value)) else {
                    return false
                }
                configuration.defaultTimeToLive = .seconds(value)
                return true
            }),
        Setting(
            flag: "uninstall-check-interval", environment: "TIDINGS_UNINSTALL_CHECK_INTERVAL",
            fileKey: "uninstall_check_interval",
            help:
                "seconds between scheduled uninstall checks of every app, each spread over the interval (at least 60)",
            apply: { configuration, text in
                guard let value = positiveSeconds(text), value >= .seconds(60) else { return false }
                configuration.uninstallCheckInterval = value
                return true
            }),
        Setting(
            flag: "instance-timeout", environment: "TIDINGS_INSTANCE_TIMEOUT", fileKey: "instance_timeout",
            help:
                "seconds (1 to 300, default 10) after which an instance sharing the PostgreSQL store that stopped heart-beating is taken for dead: its claimed deliveries go back to the queue and another instance takes over scheduled work",
            apply: { configuration, text in
                guard let value = positiveSeconds(text), value >= .seconds(1), value <= .seconds(300) else {
                    return false
                }
                configuration.cluster = ClusterMembership.Configuration(instanceTimeout: value)
                return true
            }),
        Setting(
            flag: "event-retention", environment: "TIDINGS_EVENT_RETENTION", fileKey: "event_retention",
            help:
                "days of events to keep (1 to 36500); older ones are removed once a day (PostgreSQL: whole months are dropped once past it). Unset: events are kept",
            apply: { configuration, text in
                guard let value = Int(text), (1...36500).contains(value) else { return false }
                configuration.eventRetentionDays = value
                return true
            }),
        Setting(
            flag: "shutdown-grace", environment: "TIDINGS_SHUTDOWN_GRACE", fileKey: "shutdown_grace",
            help: "seconds requests in flight get to finish on SIGTERM",
            apply: { configuration, text in
                guard let value = positiveSeconds(text) else { return false }
                configuration.http.shutdownGracePeriod = value
                return true
            }),
        Setting(
            flag: "forwarding", environment: "TIDINGS_FORWARDING", fileKey: "forwarding",
            help: "on or off: forward events to the apps' destinations (docs/forwarding.md)",
            apply: { configuration, text in
                guard let value = onOff(text) else { return false }
                configuration.forwardingEnabled = value
                return true
            }),
        Setting(
            flag: "forwarding-batch-size", environment: "TIDINGS_FORWARDING_BATCH_SIZE",
            fileKey: "forwarding_batch_size", help: "events a forwarded batch holds at most (1 to 5000)",
            integerIn: 1...5000, into: \.forwarding.batchSize),
        Setting(
            flag: "forwarding-batches-in-flight", environment: "TIDINGS_FORWARDING_BATCHES_IN_FLIGHT",
            fileKey: "forwarding_batches_in_flight",
            help: "batches a webhook or Treasure Data destination with a backlog takes at once (1 to 16; 1 keeps "
                + "every event in stored order, more keep order per installation)",
            integerIn: 1...16, into: \.forwarding.batchesInFlight),
        Setting(
            flag: "forwarding-unhealthy-after", environment: "TIDINGS_FORWARDING_UNHEALTHY_AFTER",
            fileKey: "forwarding_unhealthy_after",
            help: "seconds a destination may fail without a success before it counts as unhealthy",
            apply: { configuration, text in
                guard let value = positiveSeconds(text) else { return false }
                configuration.forwarding.unhealthyAfter = value
                return true
            }),
        Setting(
            flag: "forwarding-readiness", environment: "TIDINGS_FORWARDING_READINESS",
            fileKey: "forwarding_readiness", help: "on or off: an unhealthy destination fails /readyz",
            apply: { configuration, text in
                guard let value = onOff(text) else { return false }
                configuration.forwardingAffectsReadiness = value
                return true
            }),
    ]

    static func onOff(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "on", "true", "1", "yes": true
        case "off", "false", "0", "no": false
        default: nil
        }
    }

    /// `text` without a trailing slash when it is an absolute http(s) URL with a host; nil otherwise.
    static func httpBase(_ text: String) -> String? {
        guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            return nil
        }
        return text.hasSuffix("/") ? String(text.dropLast()) : text
    }

    /// Resolves the configuration from arguments (without the program name), environment and file.
    ///
    /// A pure function: the file is read through `readFile`, so tests pass what they like.
    /// - Throws: ``ServerConfigurationError`` naming the flag, variable or key that is wrong.
    public static func resolve(
        arguments: [String], environment: [String: String], readFile: (String) throws -> Data
    ) throws(ServerConfigurationError) -> Invocation {
        let flags = try parseFlags(arguments)
        if flags["help"] != nil { return .help }
        var configuration = ServerConfiguration()
        if let path = flags["config"]?.last ?? environment["TIDINGS_CONFIG"] {
            let values = try readConfigFile(path: path, readFile: readFile)
            for setting in settings {
                guard let text = values[setting.fileKey] else { continue }
                try apply(setting, text, to: &configuration, source: "\(setting.fileKey) in \(path)")
            }
        }
        for setting in settings {
            guard let text = environment[setting.environment] else { continue }
            try apply(setting, text, to: &configuration, source: setting.environment)
        }
        for setting in settings {
            // A repeated flag applies each value in turn: the last wins, or each adds (`--trusted-proxy`).
            for text in flags[setting.flag] ?? [] {
                try apply(setting, text, to: &configuration, source: "--\(setting.flag)")
            }
        }
        if configuration.postgresConnections != nil && configuration.postgresStore == nil {
            throw ServerConfigurationError(
                code: "invalid_value",
                message:
                    "--store-connections (TIDINGS_STORE_CONNECTIONS, store_connections) sizes the pool of a PostgreSQL --store; the SQLite store has no pool"
            )
        }
        if let admin = configuration.adminHTTP, admin.port != 0, admin.port == configuration.http.port,
            admin.host == configuration.http.host
        {
            throw ServerConfigurationError(
                code: "invalid_value",
                message:
                    "--admin-listen (TIDINGS_ADMIN_LISTEN, admin_listen) is the API's own address \(admin.host):\(admin.port); give the admin server another port"
            )
        }
        return .serve(configuration)
    }

    /// For `tidingsd apps ...` and `tidingsd keys ...`: takes `--data-dir`, `--store` and `--config` out of the
    /// command's arguments and resolves the configuration (data directory included) with the environment
    /// and file; the other arguments are returned for the command.
    public static func resolveForAdministration(
        arguments: [String], environment: [String: String], readFile: (String) throws -> Data
    ) throws(ServerConfigurationError) -> (configuration: ServerConfiguration, remaining: [String]) {
        var own: [String] = []
        var remaining: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--data-dir" || argument == "--config" || argument == "--store"
                || argument == "--secrets-key-file"
            {
                guard index < arguments.count else {
                    throw ServerConfigurationError(code: "usage", message: "\(argument) needs a value")
                }
                own += [argument, arguments[index]]
                index += 1
            } else if argument.hasPrefix("--data-dir=") || argument.hasPrefix("--config=")
                || argument.hasPrefix("--store=") || argument.hasPrefix("--secrets-key-file=")
            {
                own.append(argument)
            } else {
                remaining.append(argument)
            }
        }
        guard
            case .serve(let configuration) = try resolve(
                arguments: own, environment: environment, readFile: readFile)
        else { return (ServerConfiguration(), remaining) }
        return (configuration, remaining)
    }

    /// `tidingsd --help`.
    public static var usage: String {
        var text = """
            tidingsd: the Tidings push server.

            usage: tidingsd [options]            serve the HTTP API
                   tidingsd apps create NAME --bundle-id ID | apps list
                   tidingsd apps set-apns APP --key-file F --key-id K --team-id T
                   tidingsd apps set-fcm APP --service-account FILE
                   tidingsd apps set-identity APP --mode off|optional|required
                   tidingsd apps add-identity-key APP --key-id K --public-key FILE | remove-identity-key APP K
                   tidingsd keys create --app APP --kind app|server | --kind admin | keys list | keys revoke KEY_ID
                   tidingsd apns-emulator [--listen HOST:PORT] [--topic ID]...   (see docs/apns-emulator.md)
                   tidingsd migrate [--store ...]   (run the store's migrations and print its schema version)
                   tidingsd store copy --from sqlite:PATH --to postgres://...   (see docs/deploy.md)
                   tidingsd secrets generate-key --out FILE | secrets status | secrets rotate --new-key-file FILE

            options (flag, environment variable; flags win over the environment, which wins over the file):
              --config FILE, TIDINGS_CONFIG
                  a JSON object with the file keys below, for example {"listen": "0.0.0.0:8080"}
            """
        text += "\n"
        for setting in settings {
            text += "  --\(setting.flag) VALUE, \(setting.environment), file key \(setting.fileKey)\n"
            text += "      \(setting.help)\n"
        }
        text += "  --help\n      this text\n"
        text += "\ndefaults: listen 127.0.0.1:8080, data dir ./tidings-data, log level info\n"
        text += "/metrics is served on the listen address, without a token, unless --admin-listen or --metrics-token\n"
        text += "is set; on a public interface set one of them (docs/operations.md).\n"
        return text
    }

    /// `127.0.0.1:8080` or `[::1]:8080` as host and port.
    static func parseListen(_ text: String) -> (String, Int)? {
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                return nil
            }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
            if host.contains(":") { return nil }
        }
        guard !host.isEmpty, let port = Int(portText), (0...65535).contains(port) else { return nil }
        return (String(host), port)
    }

    private static func positiveSeconds(_ text: String) -> Duration? {
        guard let value = Double(text), value > 0, value.isFinite else { return nil }
        return .milliseconds(Int64((value * 1000).rounded()))
    }

    private static func apply(
        _ setting: Setting, _ text: String, to configuration: inout ServerConfiguration, source: String
    ) throws(ServerConfigurationError) {
        guard setting.apply(&configuration, text) else {
            // A secret is not echoed, even a wrong one: it may be the right one with a typo.
            let value = setting.secret ? "the value" : "\"\(text)\""
            throw ServerConfigurationError(
                code: "invalid_value", message: "\(source): \(value) is not valid; expected \(setting.help)")
        }
    }

    private static func parseFlags(_ arguments: [String]) throws(ServerConfigurationError) -> [String: [String]] {
        let known = Set(settings.map(\.flag) + ["config"])
        var flags: [String: [String]] = [:]
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--help" || argument == "-h" || argument == "help" {
                flags["help"] = [""]
                continue
            }
            guard argument.hasPrefix("--") else {
                throw ServerConfigurationError(code: "usage", message: "unexpected argument \(argument)")
            }
            let body = argument.dropFirst(2)
            let name: String
            let value: String
            if let equals = body.firstIndex(of: "=") {
                name = String(body[..<equals])
                value = String(body[body.index(after: equals)...])
            } else {
                name = String(body)
                guard index < arguments.count else {
                    throw ServerConfigurationError(code: "usage", message: "--\(name) needs a value")
                }
                value = arguments[index]
                index += 1
            }
            guard known.contains(name) else {
                throw ServerConfigurationError(code: "usage", message: "unknown option --\(name)")
            }
            flags[name, default: []].append(value)
        }
        return flags
    }

    private static func readConfigFile(
        path: String, readFile: (String) throws -> Data
    ) throws(ServerConfigurationError) -> [String: String] {
        let data: Data
        do { data = try readFile(path) } catch {
            throw ServerConfigurationError(code: "unreadable_config", message: "cannot read config file \(path)")
        }
        guard let object = (try? JSONDecoder().decode(JSONValue.self, from: data))?.objectValue else {
            throw ServerConfigurationError(
                code: "invalid_config", message: "config file \(path) is not a JSON object")
        }
        let keys = Set(settings.map(\.fileKey))
        var values: [String: String] = [:]
        for (key, value) in object {
            guard keys.contains(key) else {
                throw ServerConfigurationError(
                    code: "invalid_config",
                    message: "config file \(path): unknown key \(key); known: \(keys.sorted().joined(separator: ", "))")
            }
            switch value {
            case .string(let text): values[key] = text
            case .integer(let number): values[key] = String(number)
            case .double(let number): values[key] = String(number)
            default:
                throw ServerConfigurationError(
                    code: "invalid_config", message: "config file \(path): \(key) must be a string or a number")
            }
        }
        return values
    }
}

/// Why the configuration could not be resolved: `usage`, `invalid_value`, `unreadable_config`, `invalid_config`.
public struct ServerConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: String
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

extension ServerConfiguration.Setting {
    /// A whole number within `range`, stored at `keyPath`.
    init(
        flag: String, environment: String, fileKey: String, help: String, integerIn range: ClosedRange<Int>,
        into keyPath: WritableKeyPath<ServerConfiguration, Int> & Sendable
    ) {
        self.init(flag: flag, environment: environment, fileKey: fileKey, help: help) { configuration, text in
            guard let value = Int(text), range.contains(value) else { return false }
            configuration[keyPath: keyPath] = value
            return true
        }
    }
}
