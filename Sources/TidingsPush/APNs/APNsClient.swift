import CCurl
import Foundation
import TidingsMetrics
import TidingsModel

/// The APNs provider: sends each push as one HTTP/2 stream, multiplexed by ``CurlMultiClient`` on few
/// connections (more while the open ones are full: ``APNsConnectionPool``), and classifies Apple's answer into
/// a ``PushOutcome``. Every connection uses the one `authorization`, so one provider token serves them all.
///
/// ```swift
/// let apns = try APNsClient(configuration: .init(), authorization: jwtSigner, metrics: registry)
/// let outcome = await apns.send(push)
/// apns.shutdown()
/// ```
///
/// A 403 `ExpiredProviderToken`/`InvalidProviderToken` invalidates the authorization header and retries the
/// push once at once; a second rejection is `failed`. Transport errors are `retry`.
public final class APNsClient: PushProvider {
    /// Endpoints, connection counts and timeouts.
    public struct Configuration: Sendable, Hashable {
        public static let productionEndpoint = "https://api.push.apple.com"
        public static let sandboxEndpoint = "https://api.sandbox.push.apple.com"

        /// The production host; an `http://` URL speaks h2c (emulators, tests).
        public var productionEndpoint: String = Configuration.productionEndpoint
        /// The sandbox (development) host.
        public var sandboxEndpoint: String = Configuration.sandboxEndpoint
        /// Connections per host kept open once opened (each carries many streams).
        public var connectionsPerHost: Int = 1
        /// Connections per host at most: another is opened while every open one has ``maxConcurrentStreams``
        /// pushes in flight, up to this many (``APNsConnectionPool``); nil: ``connectionsPerHost``.
        public var maximumConnectionsPerHost: Int?
        /// How long a connection beyond ``connectionsPerHost`` may go without a push before it is closed.
        public var idleConnectionTimeout: Duration = .seconds(60)
        /// Our cap on concurrent streams per connection, and what makes a connection full; APNs announces its
        /// own (often 500–1,500) and libcurl keeps to the lower of the two, so set this to what the host
        /// announces.
        public var maxConcurrentStreams: Int = 1000
        /// The deadline of one request.
        public var requestTimeout: Duration = .seconds(30)
        /// A PEM CA bundle to trust instead of the system store.
        public var caBundlePath: String?
        /// Skips TLS verification. Test servers only: never set it against Apple.
        public var insecureSkipTLSVerificationForTestsOnly = false

        public init() {}

        /// Connections per host to an endpoint spoken to over HTTP/1.1.
        static let http1ConnectionsPerHost = 32

        /// Whether the endpoints are cleartext ones (an emulator, a test server) that this libcurl speaks
        /// HTTP/1.1 to (``CurlMultiClient/cleartextVersion``); Apple's are HTTP/2 over TLS.
        var speaksHTTP1: Bool {
            CurlMultiClient.cleartextVersion == TIDINGS_CURL_HTTP_VERSION_1_1
                && (productionEndpoint.hasPrefix("http://") || sandboxEndpoint.hasPrefix("http://"))
        }

        /// The endpoint serving `environment`, without a trailing slash.
        public func endpoint(for environment: OutgoingPush.Environment) -> String {
            let raw = environment == .production ? productionEndpoint : sandboxEndpoint
            return raw.hasSuffix("/") ? String(raw.dropLast()) : raw
        }

        /// One HTTP/2 connection per pooled client, each with its own window of streams; over HTTP/1.1 (an
        /// emulator) a single client with many connections, one request each.
        var pool: APNsConnectionPool.Settings {
            var pool = APNsConnectionPool.Settings()
            pool.minimum = max(1, connectionsPerHost)
            pool.maximum = max(pool.minimum, maximumConnectionsPerHost ?? pool.minimum)
            pool.streamsPerConnection = max(1, maxConcurrentStreams)
            pool.idleTimeout = idleConnectionTimeout
            pool.http.maxConnectionsPerHost = 1
            pool.http.maxConcurrentStreams = pool.streamsPerConnection
            pool.http.caBundlePath = caBundlePath
            pool.http.insecureSkipTLSVerificationForTestsOnly = insecureSkipTLSVerificationForTestsOnly
            if speaksHTTP1 {
                // One request at a time per connection: one connection would send a push per round trip.
                pool.minimum = 1
                pool.maximum = 1
                pool.http.maxConnectionsPerHost = max(connectionsPerHost, Self.http1ConnectionsPerHost)
                pool.streamsPerConnection = pool.http.maxConnectionsPerHost
            }
            return pool
        }
    }

    public let configuration: Configuration
    public let statistics: APNsStatistics
    private let authorization: (any APNsAuthorization)?
    private let clock: any TidingsClock
    private let logger: Logger?
    /// The connections to each environment's host.
    let pools: [OutgoingPush.Environment: APNsConnectionPool]

    /// Starts the HTTP/2 client.
    ///
    /// - Parameters:
    ///   - authorization: the JWT source; nil sends no `authorization` header (an emulator, certificate auth).
    ///   - metrics: where outcome counters go.
    ///   - connectionOpened: called each time a connection to an environment's host is opened.
    /// - Throws: ``HTTP2ClientError`` when libcurl cannot start. Connections are made on first use.
    public init(
        configuration: Configuration = Configuration(), authorization: (any APNsAuthorization)?,
        metrics: MetricsRegistry = MetricsRegistry(), clock: any TidingsClock = SystemClock(), logger: Logger? = nil,
        connectionOpened: (@Sendable (OutgoingPush.Environment) -> Void)? = nil
    ) throws(HTTP2ClientError) {
        self.configuration = configuration
        self.authorization = authorization
        self.statistics = APNsStatistics(registry: metrics)
        self.clock = clock
        self.logger = logger
        try CurlMultiClient.checkLibrary()
        pools = Dictionary(
            uniqueKeysWithValues: [OutgoingPush.Environment.production, .sandbox].map { environment in
                let opened = connectionOpened.map { report in { @Sendable in report(environment) } }
                return (environment, APNsConnectionPool(settings: configuration.pool, connectionOpened: opened))
            })
    }

    /// The connections to `environment`'s host now: how many, the pushes on them, the streams granted.
    public func connectionLoad(_ environment: OutgoingPush.Environment) -> APNsConnectionLoad {
        pools[environment]?.load ?? APNsConnectionLoad()
    }

    /// Sends `push` and classifies the answer; never throws.
    public func send(_ push: OutgoingPush) async -> PushOutcome {
        let outcome = await attempt(push)
        statistics.record(outcome)
        return outcome
    }

    /// Stops the HTTP/2 client: pushes in flight come back as `retry` with reason `shutdown`.
    public func shutdown() {
        for pool in pools.values { pool.shutdown() }
    }

    private func attempt(_ push: OutgoingPush) async -> PushOutcome {
        guard push.tokenType != .fcm else {
            return PushOutcome(disposition: .failed, reason: "NotAnAPNsToken", apnsID: push.apnsID)
        }
        var renewed = false
        while true {
            let header: String?
            do {
                header = try authorization?.authorizationHeader(now: clock.now)
            } catch {
                logger?.error("APNs provider token unavailable", metadata: ["error": "\(error)"])
                return PushOutcome(disposition: .failed, reason: "ProviderTokenUnavailable", apnsID: push.apnsID)
            }
            let request: HTTP2Request
            do {
                request = try APNsRequestBuilder.request(
                    for: push, endpoint: configuration.endpoint(for: push.environment), authorization: header,
                    timeout: configuration.requestTimeout)
            } catch {
                return PushOutcome(disposition: .failed, reason: error.reason, apnsID: push.apnsID)
            }
            let response: HTTP2Response
            do {
                guard let pool = pools[push.environment] else { preconditionFailure("a pool per environment") }
                response = try await pool.send(request)
            } catch {
                return PushOutcome(noResponse: error, apnsID: push.apnsID)
            }
            // A 200 carries no reason (APNs answers it with an empty body), so only an error's body is parsed.
            let body = response.status == 200 ? APNsErrorBody([]) : APNsErrorBody(response.body)
            if !renewed, let header,
                APNsResponseClassifier.isProviderTokenRejection(status: response.status, reason: body.reason)
            {
                renewed = true
                authorization?.invalidate(header)
                statistics.recordTokenRenewal()
                continue
            }
            return APNsResponseClassifier.outcome(
                status: response.status, reason: body.reason, timestamp: body.timestamp,
                retryAfter: response.headers["retry-after"],
                apnsID: Self.answeredID(response.headers["apns-id"], sent: push.apnsID))
        }
    }

    /// The `apns-id` APNs answered: the one sent, echoed, in all but odd cases, so it is compared as text
    /// rather than parsed (Foundation's parse costs about 1% of a fan-out's CPU).
    static func answeredID(_ header: String?, sent: UUID) -> UUID {
        guard let header, header != sent.lowercasedString else { return sent }
        return UUID(uuidString: header) ?? sent
    }
}
