import Foundation
import TidingsMetrics
import TidingsModel

/// The FCM HTTP v1 provider of one Firebase project: sends each push to `messages:send` with an `apns`
/// override carrying our native payload, authorised by the service account's OAuth2 access token.
///
/// ```swift
/// let fcm = try FCMClient(account: try FCMServiceAccount(contentsOfFile: "service-account.json"))
/// let outcome = await fcm.send(push)   // push.tokenType == .fcm
/// fcm.shutdown()
/// ```
///
/// A 401 invalidates the access token and retries the push once with a fresh one; a second 401 is
/// `failed`. Transport errors and a token endpoint that is down are `retry`; a token endpoint that refuses
/// the assertion is `failed` with reason `AuthenticationFailed`.
public final class FCMClient: PushProvider {
    /// Endpoints, connections and timeouts.
    public struct Configuration: Sendable, Hashable {
        public static let productionEndpoint = "https://fcm.googleapis.com"

        /// The FCM API base; an `http://` URL for fakes and tests.
        public var endpoint: String = Configuration.productionEndpoint
        /// Where the OAuth2 assertion goes instead of the service account's `token_uri` (tests, proxies).
        public var tokenURI: String?
        /// Connections to the FCM host (each carries many HTTP/2 streams).
        public var connections: Int = 1
        public var maxConcurrentStreams: Int = 100
        /// The deadline of one request.
        public var requestTimeout: Duration = .seconds(30)
        /// An access token this close to expiry is replaced before use.
        public var accessTokenRefreshMargin: Duration = .seconds(300)
        /// A PEM CA bundle to trust instead of the system store.
        public var caBundlePath: String?

        public init() {}
    }

    public let configuration: Configuration
    public let statistics: FCMStatistics
    public let accessTokens: FCMAccessTokenSource
    private let projectID: String
    private let http: CurlMultiClient
    private let logger: Logger?

    /// Starts the HTTP client.
    /// - Throws: ``HTTP2ClientError`` when libcurl cannot start.
    public init(
        account: FCMServiceAccount, configuration: Configuration = Configuration(),
        metrics: MetricsRegistry = MetricsRegistry(), clock: any TidingsClock = SystemClock(), logger: Logger? = nil
    ) throws(HTTP2ClientError) {
        self.configuration = configuration
        var http = CurlMultiClient.Configuration()
        http.maxConnectionsPerHost = max(1, configuration.connections)
        http.maxConcurrentStreams = max(1, configuration.maxConcurrentStreams)
        http.caBundlePath = configuration.caBundlePath
        self.http = try CurlMultiClient(configuration: http)
        projectID = account.projectID
        accessTokens = FCMAccessTokenSource(
            account: account, tokenURI: configuration.tokenURI, http: self.http, clock: clock,
            refreshMargin: configuration.accessTokenRefreshMargin, timeout: configuration.requestTimeout)
        statistics = FCMStatistics(registry: metrics)
        self.logger = logger
    }

    /// Sends `push` (an FCM registration token) and classifies the answer; never throws.
    public func send(_ push: OutgoingPush) async -> PushOutcome {
        let outcome = await attempt(push)
        statistics.record(outcome)
        return outcome
    }

    /// Stops the HTTP client: pushes in flight come back as `retry` with reason `shutdown`.
    public func shutdown() {
        http.shutdown()
    }

    private func attempt(_ push: OutgoingPush) async -> PushOutcome {
        var refreshed = false
        while true {
            let accessToken: String
            do {
                accessToken = try await accessTokens.accessToken()
            } catch {
                logger?.error("FCM access token unavailable", metadata: ["error": "\(error)"])
                return error.isRetryable
                    ? PushOutcome(disposition: .retry(after: nil), reason: "AuthenticationUnavailable")
                    : PushOutcome(disposition: .failed, status: error.status, reason: "AuthenticationFailed")
            }
            let request: HTTP2Request
            do {
                request = try FCMRequestBuilder.request(
                    for: push, endpoint: configuration.endpoint, projectID: projectID, accessToken: accessToken,
                    timeout: configuration.requestTimeout)
            } catch {
                return PushOutcome(disposition: .failed, reason: error.reason)
            }
            let response: HTTP2Response
            do {
                response = try await http.send(request)
            } catch {
                return PushOutcome(noResponse: error)
            }
            if response.status == 401 && !refreshed {
                refreshed = true
                await accessTokens.invalidate(accessToken)
                statistics.recordTokenRefresh()
                continue
            }
            return FCMResponseClassifier.outcome(
                status: response.status, reason: FCMResponseClassifier.reason(body: response.body),
                retryAfter: response.headers["retry-after"])
        }
    }
}
