import Foundation
import TidingsModel
import TidingsTestSupport

@testable import TidingsAPNsEmulator
@testable import TidingsCrypto
@testable import TidingsHTTP
@testable import TidingsPush
@testable import TidingsServer
@testable import TidingsStore
@testable import TidingsTesting

/// Google's OAuth2 token endpoint and FCM's `messages:send` in one in-process server (our HTTPServer and
/// Router over loopback): checks every assertion's RS256 signature with the service account's public key,
/// issues access tokens, checks them on sends, and answers scripted FCM errors per registration token.
final class FakeFCMServer: Sendable {
    /// One scripted FCM answer.
    struct Answer: Sendable {
        var status: Int
        /// The `FcmError` code (`UNREGISTERED`...) or, when `canonical`, the `error.status` only.
        var code: String
        var canonical = false
        var retryAfter: String?
    }

    /// One `messages:send` request as received.
    struct Received: Sendable {
        var accessToken: String
        var body: JSONValue
        var registrationToken: String? { body["message"]?["token"]?.stringValue }
    }

    private struct State {
        var issued: [String] = []
        var revoked: Set<String> = []
        var oauthFailures: [Int] = []
        var assertionErrors: [String] = []
        var answers: [String: [Answer]] = [:]
        var received: [Received] = []
        var expiresIn: Int64 = 3600
        var rejectAll = false
        var sendAttempts = 0
        var audience: String?
    }

    static let projectID = "tidings-test"
    static let clientEmail = "sender@tidings-test.iam.gserviceaccount.com"

    let key = RS256Key.generate()
    private let state = LockedBox(State())
    private let serverBox = LockedBox<LoopbackServer?>(nil)

    init() throws {
        let server = try LoopbackServer(routes: routes)
        serverBox.withLock { $0 = server }
    }

    var server: LoopbackServer {
        // Set in init, before anyone can reach it.
        serverBox.withLock { $0! }
    }

    var tokenURI: String { "http://127.0.0.1:\(server.port)/token" }
    var endpoint: String { "http://127.0.0.1:\(server.port)" }

    /// A service-account file for this server's key, `token_uri` pointing here.
    func serviceAccountJSON(projectID: String = FakeFCMServer.projectID) throws -> [UInt8] {
        let object: JSONValue = [
            "type": "service_account", "project_id": .string(projectID), "private_key_id": "kid-1",
            "private_key": .string(key.privateKeyPEM() ?? ""), "client_email": .string(Self.clientEmail),
            "token_uri": .string(tokenURI),
        ]
        return try object.serialized()
    }

    func serviceAccount() throws -> FCMServiceAccount { try FCMServiceAccount(json: serviceAccountJSON()) }

    /// The `expires_in` of tokens issued from now on.
    func setTokenLifetime(seconds: Int64) { state.withLock { $0.expiresIn = seconds } }
    /// Queues answers for `token`, one per send; then 200.
    func script(token: String, _ answers: [Answer]) {
        state.withLock { $0.answers[token, default: []].append(contentsOf: answers) }
    }
    /// Makes FCM answer 401 to every access token issued so far (as after a revocation).
    func revokeIssuedTokens() { state.withLock { $0.revoked.formUnion($0.issued) } }
    /// Makes FCM answer 401 to every access token, old or new.
    func rejectEveryAccessToken() { state.withLock { $0.rejectAll = true } }
    /// The `aud` assertions must carry (default: this server's token URI).
    func expectAudience(_ audience: String) { state.withLock { $0.audience = audience } }
    /// The token endpoint answers these statuses to the next requests.
    func failOAuth(_ statuses: [Int]) { state.withLock { $0.oauthFailures += statuses } }

    var issuedTokens: [String] { state.withLock { $0.issued } }
    var assertionErrors: [String] { state.withLock { $0.assertionErrors } }
    var received: [Received] { state.withLock { $0.received } }
    /// Every `messages:send` request, refused ones included.
    var sendAttempts: Int { state.withLock { $0.sendAttempts } }

    func shutdown() async { await server.server.shutdown() }

    private var routes: [HTTPRoute] {
        [
            HTTPRoute("POST", "/token") { request in self.token(request) },
            HTTPRoute("POST", "/v1/projects/{project}/messages:send") { request in
                self.send(request)
            },
        ]
    }

    private func json(_ status: Int, _ value: JSONValue, headers: HTTPHeaders = [:]) -> HTTPResponse {
        var headers = headers
        headers["Content-Type"] = "application/json"
        return HTTPResponse(status: status, headers: headers, body: (try? value.serializedData()) ?? Data())
    }

    private func token(_ request: HTTPRequest) -> HTTPResponse {
        if let status = state.withLock({ $0.oauthFailures.isEmpty ? nil : $0.oauthFailures.removeFirst() }) {
            return json(status, ["error": status >= 500 ? "internal_failure" : "invalid_grant"])
        }
        var form: [String: String] = [:]
        for pair in String(decoding: request.body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
            if parts.count == 2 { form[parts[0]] = parts[1] }
        }
        if let problem = assertionProblem(form) {
            state.withLock { $0.assertionErrors.append(problem) }
            return json(400, ["error": "invalid_grant", "error_description": .string(problem)])
        }
        let (token, lifetime) = state.withLock { state -> (String, Int64) in
            let token = "ya29.fake-\(state.issued.count + 1)"
            state.issued.append(token)
            return (token, state.expiresIn)
        }
        return json(200, ["access_token": .string(token), "expires_in": .integer(lifetime), "token_type": "Bearer"])
    }

    /// What is wrong with the grant, or nil when Google would accept it.
    private func assertionProblem(_ form: [String: String]) -> String? {
        guard form["grant_type"] == FCMAccessTokenSource.grantType else { return "wrong grant_type" }
        guard let assertion = form["assertion"] else { return "no assertion" }
        let parts = assertion.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]),
            let claimBytes = Base64URL.decode(parts[1]), let signature = Base64URL.decode(parts[2]),
            let header = try? JSONValue.parse(headerBytes), let claims = try? JSONValue.parse(claimBytes)
        else { return "not a JWS" }
        guard header["alg"] == "RS256", header["kid"] == "kid-1" else { return "wrong header" }
        guard key.publicKey().verify(signature, for: Array("\(parts[0]).\(parts[1])".utf8)) else {
            return "bad signature"
        }
        guard claims["iss"] == .string(Self.clientEmail), claims["scope"] == .string(FCMAssertion.scope),
            claims["aud"] == .string(state.withLock { $0.audience } ?? tokenURI)
        else { return "wrong claims" }
        guard case .integer(let iat)? = claims["iat"], case .integer(let exp)? = claims["exp"], exp - iat == 3600
        else { return "wrong lifetime" }
        return nil
    }

    private func send(_ request: HTTPRequest) -> HTTPResponse {
        state.withLock { $0.sendAttempts += 1 }
        let authorization = request.headers["authorization"] ?? ""
        let accessToken = authorization.hasPrefix("Bearer ") ? String(authorization.dropFirst(7)) : ""
        let authorized = state.withLock {
            !$0.rejectAll && $0.issued.contains(accessToken) && !$0.revoked.contains(accessToken)
        }
        guard authorized else {
            return json(401, ["error": ["code": 401, "status": "UNAUTHENTICATED", "message": "bad credentials"]])
        }
        guard request.pathParameters["project"] == Self.projectID else {
            return json(404, ["error": ["code": 404, "status": "NOT_FOUND", "message": "no such project"]])
        }
        guard let body = try? JSONValue.parse(request.body), let token = body["message"]?["token"]?.stringValue
        else {
            return json(400, ["error": ["code": 400, "status": "INVALID_ARGUMENT", "message": "no token"]])
        }
        let answer = state.withLock { state -> Answer? in
            state.received.append(Received(accessToken: accessToken, body: body))
            guard var queue = state.answers[token], !queue.isEmpty else { return nil }
            let answer = queue.removeFirst()
            state.answers[token] = queue
            return answer
        }
        guard let answer else {
            return json(200, ["name": .string("projects/\(Self.projectID)/messages/\(UUID().uuidString)")])
        }
        var error: [String: JSONValue] = [
            "code": .integer(Int64(answer.status)), "message": "scripted",
            "status": .string(answer.canonical ? answer.code : canonicalStatus(answer.status)),
        ]
        if !answer.canonical {
            error["details"] = [
                [
                    "@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError",
                    "errorCode": .string(answer.code),
                ]
            ]
        }
        var headers = HTTPHeaders()
        if let retryAfter = answer.retryAfter { headers["Retry-After"] = retryAfter }
        return json(answer.status, ["error": .object(error)], headers: headers)
    }

    private func canonicalStatus(_ status: Int) -> String {
        switch status {
        case 400: "INVALID_ARGUMENT"
        case 403: "PERMISSION_DENIED"
        case 404: "NOT_FOUND"
        case 429: "RESOURCE_EXHAUSTED"
        case 503: "UNAVAILABLE"
        default: "INTERNAL"
        }
    }
}
