import Foundation
import TidingsModel

/// The OAuth2 access token of one service account, shared by every FCM request that uses the account.
///
/// ```swift
/// let tokens = FCMAccessTokenSource(account: account, http: http)
/// request.headers.append(("authorization", "Bearer " + (try await tokens.accessToken())))
/// // FCM answered 401 to that token:
/// await tokens.invalidate(token)
/// ```
///
/// The token is fetched with the JWT-bearer grant (RFC 7523): a form POST of
/// `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=<RS256 JWT>` to the token endpoint.
/// It is reused until ``refreshMargin`` before its `expires_in` runs out; concurrent callers share one fetch.
public actor FCMAccessTokenSource {
    /// The grant type of a signed-assertion exchange.
    public static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"

    private struct Cached {
        var token: String
        var expiresAt: Date
    }

    public let account: FCMServiceAccount
    /// Where assertions are sent: the account's `token_uri` unless overridden (tests, proxies).
    public let tokenURI: String
    /// A token this close to its expiry is replaced before use.
    public let refreshMargin: Duration
    /// After a failed fetch, callers get the same error for this long instead of asking again, so a
    /// broken token endpoint costs one request per interval, not one per push.
    public let failureHoldoff: Duration
    private let http: CurlMultiClient
    private let clock: any TidingsClock
    private let timeout: Duration
    private var cached: Cached?
    private var inFlight: Task<Cached, any Error>?
    private var lastFailure: (error: FCMAuthError, at: Date)?
    /// How many tokens were fetched (a test and metrics hook).
    public private(set) var fetchCount = 0

    public init(
        account: FCMServiceAccount, tokenURI: String? = nil, http: CurlMultiClient,
        clock: any TidingsClock = SystemClock(), refreshMargin: Duration = .seconds(300),
        failureHoldoff: Duration = .seconds(5), timeout: Duration = .seconds(30)
    ) {
        self.failureHoldoff = failureHoldoff
        self.account = account
        self.tokenURI = tokenURI ?? account.tokenURI
        self.http = http
        self.clock = clock
        self.refreshMargin = refreshMargin
        self.timeout = timeout
    }

    /// A valid access token: the cached one, or a fresh one when it is missing or about to expire.
    /// - Throws: ``FCMAuthError``.
    public func accessToken() async throws(FCMAuthError) -> String {
        if let cached, cached.expiresAt.timeIntervalSince(clock.now) > refreshMargin.seconds {
            return cached.token
        }
        if let lastFailure, clock.now.timeIntervalSince(lastFailure.at) < failureHoldoff.seconds {
            throw lastFailure.error
        }
        let task: Task<Cached, any Error>
        if let inFlight {
            task = inFlight
        } else {
            let account = account
            let tokenURI = tokenURI
            let http = http
            let now = clock.now
            let timeout = timeout
            task = Task {
                try await Self.fetch(account: account, tokenURI: tokenURI, http: http, now: now, timeout: timeout)
            }
            inFlight = task
            fetchCount += 1
        }
        do {
            let fetched = try await task.value
            if inFlight == task { inFlight = nil }
            cached = fetched
            lastFailure = nil
            return fetched.token
        } catch {
            let failure = (error as? FCMAuthError) ?? FCMAuthError(.transport, "token request failed: \(error)")
            if inFlight == task {
                inFlight = nil
                lastFailure = (failure, clock.now)
            }
            throw failure
        }
    }

    /// FCM rejected `token` (401): the next call fetches a new one. A token already replaced is left alone,
    /// so many requests failing with the same old token cause one refresh, not many.
    public func invalidate(_ token: String) {
        if cached?.token == token { cached = nil }
    }

    private static func fetch(
        account: FCMServiceAccount, tokenURI: String, http: CurlMultiClient, now: Date, timeout: Duration
    ) async throws(FCMAuthError) -> Cached {
        let assertion: String
        do {
            assertion = try FCMAssertion.make(for: account, audience: account.tokenURI, issuedAt: now)
        } catch {
            throw FCMAuthError(.signingFailed, "cannot sign the OAuth2 assertion: \(error.message)")
        }
        // The assertion is base64url and the grant type is fixed: only ':' needs escaping in either.
        let body = "grant_type=" + grantType.replacingOccurrences(of: ":", with: "%3A") + "&assertion=" + assertion
        let request = HTTP2Request(
            method: "POST", url: tokenURI,
            headers: [("content-type", "application/x-www-form-urlencoded"), ("accept", "application/json")],
            body: Array(body.utf8), timeout: timeout)
        let response: HTTP2Response
        do {
            response = try await http.send(request)
        } catch {
            throw FCMAuthError(.transport, "the token endpoint did not answer: \(error)")
        }
        let object = (try? JSONValue.parse(response.body))?.objectValue
        guard response.status == 200 else {
            let reason = object?["error"]?.stringValue ?? "no error code"
            let retryable = response.status == 429 || response.status >= 500
            throw FCMAuthError(
                retryable ? .unavailable : .rejected, "the token endpoint answered \(response.status) (\(reason))",
                status: response.status)
        }
        guard let token = object?["access_token"]?.stringValue, !token.isEmpty,
            case .integer(let expiresIn)? = object?["expires_in"], expiresIn > 0
        else {
            throw FCMAuthError(
                .malformedResponse, "the token endpoint's answer has no access_token and positive expires_in",
                status: 200)
        }
        return Cached(token: token, expiresAt: now.addingTimeInterval(TimeInterval(expiresIn)))
    }
}
