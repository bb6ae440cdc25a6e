import Foundation
import Testing
import TidingsAPNsEmulator
import TidingsHTTP
import TidingsPush
import TidingsServer

@testable import TidingsTesting

@Suite struct ServerConfigurationTests {
    struct Missing: Error {}

    static func resolve(
        _ arguments: [String], environment: [String: String] = [:], files: [String: String] = [:]
    ) throws(ServerConfigurationError) -> ServerConfiguration.Invocation {
        try ServerConfiguration.resolve(arguments: arguments, environment: environment) { path in
            guard let text = files[path] else { throw Missing() }
            return Data(text.utf8)
        }
    }

    static func configuration(
        _ arguments: [String], environment: [String: String] = [:], files: [String: String] = [:]
    ) throws -> ServerConfiguration {
        guard case .serve(let configuration) = try resolve(arguments, environment: environment, files: files) else {
            throw Missing()
        }
        return configuration
    }

    @Test func defaults() throws {
        let configuration = try Self.configuration([])
        #expect(configuration.http.host == "127.0.0.1")
        #expect(configuration.http.port == 8080)
        #expect(configuration.dataDirectory == "./tidings-data")
        #expect(configuration.logLevel == .info)
        #expect(configuration.http.maximumBodyBytes > 1_048_576)
    }

    @Test func messageLifetimeAndUninstallScheduleSettings() throws {
        let defaults = try Self.configuration([])
        #expect(defaults.defaultTimeToLive == .seconds(259_200))
        #expect(defaults.uninstallCheckInterval == nil)
        let configuration = try Self.configuration(
            ["--default-ttl", "0", "--uninstall-check-interval", "86400"])
        #expect(configuration.defaultTimeToLive == .zero)
        #expect(configuration.uninstallCheckInterval == .seconds(86400))
        let fromEnvironment = try Self.configuration([], environment: ["TIDINGS_DEFAULT_TTL": "3600"])
        #expect(fromEnvironment.defaultTimeToLive == .seconds(3600))
        for bad in [
            ["--default-ttl", "-1"], ["--default-ttl", "2592001"], ["--default-ttl", "soon"],
            ["--uninstall-check-interval", "59"],
        ] {
            let error = #expect(throws: ServerConfigurationError.self) { try Self.configuration(bad) }
            #expect(error?.message.contains(bad[0]) == true, "\(bad): names the flag")
        }
    }

    @Test func trustedProxiesRepeatAndTakeCommasAndTheForwardedHeaderIsChosen() throws {
        #expect(try Self.configuration([]).trustedProxies.networks.isEmpty)
        let flags = try Self.configuration([
            "--trusted-proxy", "10.0.0.0/8", "--trusted-proxy=fd00::/8, 192.0.2.1", "--forwarded-header", "Forwarded",
        ])
        #expect(flags.trustedProxies.networks.map(\.description) == ["10.0.0.0/8", "fd00::/8", "192.0.2.1/32"])
        #expect(flags.trustedProxies.header == .forwarded)
        let environment = try Self.configuration([], environment: ["TIDINGS_TRUSTED_PROXY": "172.16.0.0/12"])
        #expect(environment.trustedProxies.networks.map(\.description) == ["172.16.0.0/12"])
        #expect(environment.trustedProxies.header == .xForwardedFor)
        for bad in [
            ["--trusted-proxy", "10.0.0.0/33"], ["--trusted-proxy", "proxy.internal"],
            ["--forwarded-header", "x-real-ip"],
        ] {
            let error = #expect(throws: ServerConfigurationError.self) { try Self.configuration(bad) }
            #expect(error?.message.contains(bad[0]) == true, "\(bad): names the flag")
        }
        // A repeated flag that is not a list still takes its last value.
        #expect(try Self.configuration(["--log-level", "debug", "--log-level", "error"]).logLevel == .error)
    }

    @Test func forwardingBatchesInFlightFromFlagAndEnvironment() throws {
        #expect(try Self.configuration([]).forwarding.batchesInFlight == 4)
        #expect(try Self.configuration(["--forwarding-batches-in-flight", "1"]).forwarding.batchesInFlight == 1)
        let fromEnvironment = try Self.configuration(
            [], environment: ["TIDINGS_FORWARDING_BATCHES_IN_FLIGHT": "8"])
        #expect(fromEnvironment.forwarding.batchesInFlight == 8)
        for bad in ["0", "17", "many"] {
            let error = #expect(throws: ServerConfigurationError.self) {
                try Self.configuration(["--forwarding-batches-in-flight", bad])
            }
            #expect(error?.message.contains("--forwarding-batches-in-flight") == true)
        }
    }

    @Test func anAPNsEndpointReplacesBothOfApplesHosts() throws {
        #expect(try Self.configuration([]).apns == ServerConfiguration.defaultAPNs)
        let configuration = try Self.configuration(
            ["--apns-endpoint", "http://127.0.0.1:8443/", "--apns-ca-file", "/etc/ca.pem"])
        #expect(configuration.apns.productionEndpoint == "http://127.0.0.1:8443")
        #expect(configuration.apns.sandboxEndpoint == "http://127.0.0.1:8443")
        #expect(configuration.apns.caBundlePath == "/etc/ca.pem")
        #expect(throws: ServerConfigurationError.self) { try Self.configuration(["--apns-endpoint", "ftp://x"]) }
    }

    @Test func apnsConnectionsAndStreamsFromFlagAndEnvironment() throws {
        let defaults = try Self.configuration([]).apns
        #expect(defaults.connectionsPerHost == 1)
        #expect(defaults.maximumConnectionsPerHost == 4)
        #expect(defaults.maxConcurrentStreams == 1000)
        let configuration = try Self.configuration(["--apns-connections", "8", "--apns-streams", "100"]).apns
        #expect(configuration.maximumConnectionsPerHost == 8)
        #expect(configuration.maxConcurrentStreams == 100)
        let fromEnvironment = try Self.configuration([], environment: ["TIDINGS_APNS_CONNECTIONS": "1"]).apns
        #expect(fromEnvironment.maximumConnectionsPerHost == 1)
        for (flag, bad) in [
            ("--apns-connections", "0"), ("--apns-connections", "65"), ("--apns-connections", "some"),
            ("--apns-streams", "0"), ("--apns-streams", "1001"),
        ] {
            let error = #expect(throws: ServerConfigurationError.self) { try Self.configuration([flag, bad]) }
            #expect(error?.message.contains(flag) == true)
        }
    }

    @Test func sendingSettingsReachTheirProviders() throws {
        let defaults = try Self.configuration([])
        #expect(defaults.fcm == FCMClient.Configuration())
        #expect(defaults.fanout == FanoutWorker.Configuration())
        #expect(defaults.insecureMediaHosts.isEmpty)
        let configuration = try Self.configuration([
            "--fcm-endpoint", "http://127.0.0.1:9000/", "--fcm-token-uri", "http://127.0.0.1:9000/token",
            "--fanout-lease", "30", "--fanout-in-flight", "8", "--insecure-media-host", "LocalHost",
        ])
        #expect(configuration.fcm.endpoint == "http://127.0.0.1:9000")
        #expect(configuration.fcm.tokenURI == "http://127.0.0.1:9000/token")
        #expect(configuration.fanout.lease == .seconds(30))
        #expect(configuration.fanout.maximumInFlight == 8)
        #expect(configuration.insecureMediaHosts == ["localhost"])
        for bad in [
            ["--fcm-endpoint", "fcm.googleapis.com"], ["--fanout-in-flight", "0"], ["--fanout-lease", "-1"],
            ["--insecure-media-host", "http://x/"],
        ] {
            #expect(throws: ServerConfigurationError.self) { try Self.configuration(bad) }
        }
    }

    @Test func flagsBeatEnvironmentWhichBeatsTheFile() throws {
        let files = [
            "/etc/t.json": #"{"listen": "10.0.0.1:1", "data_dir": "/file", "log_level": "debug", "threads": 3}"#
        ]
        let environment = ["TIDINGS_CONFIG": "/etc/t.json", "TIDINGS_LISTEN": "10.0.0.2:2", "TIDINGS_DATA_DIR": "/env"]
        let configuration = try Self.configuration(["--listen", "10.0.0.3:3"], environment: environment, files: files)
        #expect(configuration.http.host == "10.0.0.3")
        #expect(configuration.http.port == 3)
        #expect(configuration.dataDirectory == "/env")
        #expect(configuration.logLevel == .debug)
        #expect(configuration.http.threadCount == 3)
    }

    /// Both stores get three network threads per core: on PostgreSQL too, the calls that wait longest
    /// (installation upserts, event batches) hold no network thread while they wait.
    @Test func bothStoresGetThreeNetworkThreadsPerCoreUnlessOthersAreGiven() throws {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let postgres = ["--store", "postgres://tidings@db/tidings"]
        #expect(try Self.configuration([]).http.threadCount == min(256, 3 * cores))
        #expect(try Self.configuration(postgres).http.threadCount == min(256, 3 * cores))
        #expect(try Self.configuration(postgres + ["--threads", "5"]).http.threadCount == 5)
        #expect(try Self.configuration(postgres, environment: ["TIDINGS_THREADS": "7"]).http.threadCount == 7)
        let files = ["/t.json": #"{"threads": 9}"#]
        #expect(try Self.configuration(postgres + ["--config", "/t.json"], files: files).http.threadCount == 9)
    }

    @Test func storeConnectionsSizeThePostgresPool() throws {
        let postgres = ["--store", "postgres://tidings@db/tidings"]
        #expect(try Self.configuration(postgres).postgresConnections == nil, "the store's default")
        #expect(try Self.configuration(postgres + ["--store-connections", "24"]).postgresConnections == 24)
        let fromEnvironment = try Self.configuration(postgres, environment: ["TIDINGS_STORE_CONNECTIONS": "2"])
        #expect(fromEnvironment.postgresConnections == 2)
        let files = ["/pool.json": #"{"store": "postgres://tidings@db/tidings", "store_connections": 1000}"#]
        #expect(try Self.configuration(["--config", "/pool.json"], files: files).postgresConnections == 1000)
    }

    @Test(arguments: ["1", "1001", "0", "-3", "ten"])
    func storeConnectionsOutOfRangeSayTheRange(text: String) {
        do {
            _ = try Self.resolve(["--store", "postgres://tidings@db/tidings", "--store-connections", text])
            Issue.record("expected an error for \(text)")
        } catch {
            #expect(error.code == "invalid_value")
            #expect(error.message.contains("--store-connections"))
            #expect(error.message.contains("2 to 1000"))
        }
    }

    @Test func storeConnectionsWithoutPostgresAreRefused() {
        do {
            _ = try Self.resolve(["--store-connections", "8"])
            Issue.record("expected an error")
        } catch {
            #expect(error.code == "invalid_value")
            #expect(error.message.contains("PostgreSQL --store"))
        }
    }

    @Test func configFlagBeatsTheConfigVariable() throws {
        let files = ["/a.json": #"{"data_dir": "/a"}"#, "/b.json": #"{"data_dir": "/b"}"#]
        let configuration = try Self.configuration(
            ["--config=/b.json"], environment: ["TIDINGS_CONFIG": "/a.json"], files: files)
        #expect(configuration.dataDirectory == "/b")
    }

    @Test func limitsAndTimeoutsAreParsed() throws {
        let configuration = try Self.configuration(
            [
                "--max-body-bytes", "2048", "--handler-timeout", "1.5", "--connection-timeout=7",
                "--max-connections", "9", "--shutdown-grace", "3", "--connection-memory", "16384",
            ])
        #expect(configuration.http.maximumBodyBytes == 2048)
        #expect(configuration.http.handlerTimeout == .milliseconds(1500))
        #expect(configuration.http.connectionTimeout == .seconds(7))
        #expect(configuration.http.maximumConnections == 9)
        #expect(configuration.http.shutdownGracePeriod == .seconds(3))
        #expect(configuration.http.connectionMemoryLimit == 16384)
    }

    @Test(arguments: [
        ("127.0.0.1:8080", "127.0.0.1", 8080), ("0.0.0.0:0", "0.0.0.0", 0), ("[::1]:9000", "::1", 9000),
    ])
    func listenAddresses(text: String, host: String, port: Int) throws {
        let configuration = try Self.configuration(["--listen", text])
        #expect(configuration.http.host == host)
        #expect(configuration.http.port == port)
    }

    @Test(arguments: ["8080", "host:", ":80", "h:99999", "::1:80", "[::1]80", "h:-1"])
    func badListenAddressNamesTheFlag(text: String) {
        #expect(throws: ServerConfigurationError.self) { try Self.resolve(["--listen", text]) }
        do {
            _ = try Self.resolve(["--listen", text])
        } catch {
            #expect(error.code == "invalid_value")
            #expect(error.message.contains("--listen"))
        }
    }

    @Test func badEnvironmentValueNamesTheVariable() {
        do {
            _ = try Self.resolve([], environment: ["TIDINGS_LOG_LEVEL": "loud"])
            Issue.record("expected an error")
        } catch {
            #expect(error.code == "invalid_value")
            #expect(error.message.contains("TIDINGS_LOG_LEVEL"))
        }
    }

    @Test(arguments: [
        (["--bogus", "1"], "usage"), (["serve"], "usage"), (["--listen"], "usage"),
        (["--config", "/missing.json"], "unreadable_config"), (["--config", "/bad.json"], "invalid_config"),
        (["--config", "/typo.json"], "invalid_config"), (["--config", "/bool.json"], "invalid_config"),
        (["--threads", "0"], "invalid_value"), (["--connection-memory", "100"], "invalid_value"),
        (["--max-body-bytes", "-5"], "invalid_value"),
    ])
    func mistakesAreTypedErrors(arguments: [String], code: String) {
        let files = ["/bad.json": "[1,2", "/typo.json": #"{"lsten": "x"}"#, "/bool.json": #"{"threads": true}"#]
        do {
            _ = try Self.resolve(arguments, files: files)
            Issue.record("expected \(code)")
        } catch {
            #expect(error.code == code)
        }
    }

    @Test func metricsStayOpenOnTheAPIAddressByDefault() throws {
        let configuration = try Self.configuration([])
        #expect(configuration.adminHTTP == nil)
        #expect(configuration.metricsToken == nil)
        #expect(configuration.readinessCacheDuration == .seconds(2))
    }

    @Test func adminAddressAndMetricsTokenFromFlagsEnvironmentAndFile() throws {
        let secret = "0123456789abcdef-token"
        let fromFlags = try Self.configuration(["--admin-listen", "127.0.0.1:9090", "--metrics-token", secret])
        let admin = try #require(fromFlags.adminHTTP)
        #expect(admin.host == "127.0.0.1")
        #expect(admin.port == 9090)
        #expect(admin.threadCount == 2)
        #expect(fromFlags.metricsToken == BearerToken(secret))
        #expect(fromFlags.metricsToken?.isPresented(in: "Bearer \(secret)") == true)

        let fromEnvironment = try Self.configuration(
            [], environment: ["TIDINGS_ADMIN_LISTEN": "[::1]:9091", "TIDINGS_METRICS_TOKEN": secret])
        #expect(fromEnvironment.adminHTTP?.host == "::1")
        #expect(fromEnvironment.adminHTTP?.port == 9091)
        #expect(fromEnvironment.metricsToken == BearerToken(secret))

        let files = ["/t.json": #"{"admin_listen": "0.0.0.0:9092", "metrics_token": "\#(secret)"}"#]
        let fromFile = try Self.configuration(["--config", "/t.json"], files: files)
        #expect(fromFile.adminHTTP?.host == "0.0.0.0")
        #expect(fromFile.adminHTTP?.port == 9092)
        #expect(fromFile.metricsToken == BearerToken(secret))
    }

    @Test(arguments: ["9090", "localhost", "127.0.0.1:", "127.0.0.1:70000"])
    func badAdminAddressNamesTheFlag(text: String) {
        do {
            _ = try Self.resolve(["--admin-listen", text])
            Issue.record("expected an error")
        } catch {
            #expect(error.code == "invalid_value")
            #expect(error.message.contains("--admin-listen"))
        }
    }

    @Test func theAdminAddressMustNotBeTheAPIAddress() {
        do {
            _ = try Self.resolve(["--listen", "127.0.0.1:8080", "--admin-listen", "127.0.0.1:8080"])
            Issue.record("expected an error")
        } catch {
            #expect(error.code == "invalid_value")
            #expect(error.message.contains("--admin-listen"))
        }
        // Two free ports picked at start are distinct ports.
        #expect(throws: Never.self) { try Self.resolve(["--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0"]) }
    }

    @Test(arguments: [
        (["--metrics-token", "too-short"], [:], "--metrics-token"),
        (["--metrics-token", "has spaces inside of it"], [:], "--metrics-token"),
        ([], ["TIDINGS_METRICS_TOKEN": "too-short"], "TIDINGS_METRICS_TOKEN"),
    ])
    func aBadTokenNamesItsSourceButNeverEchoesIt(arguments: [String], environment: [String: String], source: String) {
        let value = arguments.last ?? environment.values.first ?? ""
        do {
            _ = try Self.resolve(arguments, environment: environment)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == "invalid_value")
            #expect(error.message.contains(source))
            #expect(!error.message.contains(value))
        }
    }

    @Test func theTokenIsNeverPrinted() throws {
        let secret = "never-print-this-secret-0001"
        let configuration = try Self.configuration(["--metrics-token", secret])
        #expect(!String(describing: configuration).contains(secret))
        #expect(!String(reflecting: configuration).contains(secret))
        var dumped = ""
        dump(configuration, to: &dumped)
        #expect(!dumped.contains(secret))
        #expect(
            ServerConfiguration.usage.contains("--metrics-token VALUE, TIDINGS_METRICS_TOKEN, file key metrics_token"))
        #expect(ServerConfiguration.usage.contains("--admin-listen VALUE, TIDINGS_ADMIN_LISTEN, file key admin_listen"))
    }

    @Test func helpIsRecognised() throws {
        #expect(try Self.resolve(["--help"]) == .help)
        #expect(try Self.resolve(["-h"]) == .help)
        #expect(ServerConfiguration.usage.contains("tidingsd apps create NAME --bundle-id ID"))
        #expect(ServerConfiguration.usage.contains("TIDINGS_DATA_DIR"))
    }

    @Test func administrationTakesDataDirectoryAndLeavesTheRest() throws {
        let (configuration, remaining) = try ServerConfiguration.resolveForAdministration(
            arguments: ["create", "Shop", "--data-dir", "/d", "--bundle-id", "com.x"], environment: [:],
            readFile: { _ in throw Missing() })
        #expect(configuration.dataDirectory == "/d")
        #expect(remaining == ["create", "Shop", "--bundle-id", "com.x"])
        let fromEnvironment = try ServerConfiguration.resolveForAdministration(
            arguments: ["list"], environment: ["TIDINGS_DATA_DIR": "/e"], readFile: { _ in throw Missing() })
        #expect(fromEnvironment.configuration.dataDirectory == "/e")
    }
}
