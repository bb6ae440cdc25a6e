import Foundation
import TidingsCrypto
import TidingsHTTP
import TidingsModel
import TidingsStore

/// Signs operators in and out and resolves a request's session cookie; owns the sign-in rate limits.
final class ConsoleSessions: Sendable {
    /// The cookie that carries the session id.
    static let cookieName = "tidings_session"
    /// The cookie that marks a browser an operator signed in from (a random token; the store keeps its digest).
    /// Sent only to the sign-in route.
    static let browserCookieName = "tidings_browser"
    /// The header every write made with a session must carry, holding the session's CSRF token.
    static let csrfHeader = "X-CSRF-Token"
    /// The header naming the app a session request acts on.
    static let appHeader = "X-Tidings-App"

    let store: any Store
    let settings: ConsoleSessionSettings
    let clock: any TidingsClock
    /// Failed sign-ins and codes, counted in the store for every instance.
    let throttle: SignInThrottle
    let secondFactors: OperatorSecondFactors

    init(store: any Store, settings: ConsoleSessionSettings, clock: any TidingsClock) {
        self.store = store
        self.settings = settings
        self.clock = clock
        throttle = SignInThrottle(store: store, clock: clock)
        secondFactors = OperatorSecondFactors(store: store, clock: clock)
    }

    var now: Int64 { clock.now.millisecondsSince1970 }

    /// The session id the request's cookie carries, if any.
    static func sessionID(_ request: HTTPRequest) -> String? { cookie(cookieName, of: request) }

    /// The browser token the request's cookie carries, if any.
    static func browserToken(_ request: HTTPRequest) -> String? { cookie(browserCookieName, of: request) }

    private static func cookie(_ name: String, of request: HTTPRequest) -> String? {
        guard let header = request.headers["Cookie"] else { return nil }
        for part in header.split(separator: ";") {
            let pair = part.trimmingCharacters(in: .whitespaces)
            guard pair.hasPrefix(name + "=") else { continue }
            let value = String(pair.dropFirst(name.count + 1))
            return value.isEmpty ? nil : value
        }
        return nil
    }

    /// The live session and operator behind the request's cookie; nil when it has no cookie.
    /// - Throws: 401 `session_expired` for an unknown, ended or timed-out session, or a removed operator.
    func resolve(_ request: HTTPRequest, touch: Bool = true) throws -> (OperatorSession, OperatorRecord)? {
        guard let id = Self.sessionID(request) else { return nil }
        let digest = SHA256Digest.hash(id)
        let date = now
        guard let session = try store.session(idDigest: digest),
            SHA256Digest.constantTimeEquals(session.idDigest, digest)
        else { throw Self.expired() }
        if date - session.lastSeenAt > Int64(settings.idleTimeout * 1000)
            || date - session.createdAt > Int64(settings.absoluteTimeout * 1000)
        {
            try store.removeSession(idDigest: digest)
            throw Self.expired()
        }
        guard let account = try store.operatorAccount(named: session.operatorName) else {
            throw Self.expired()
        }
        // Writing on every request would make each page view a write; a minute's precision is plenty.
        if touch, date - session.lastSeenAt > 60_000 { try store.touchSession(idDigest: digest, at: date) }
        return (session, account)
    }

    static func expired() -> HTTPError {
        HTTPError(status: 401, code: "session_expired", message: "the console session ended; sign in again")
    }

    /// Refuses a write whose `Origin` is another site's, or whose CSRF header does not match the session's.
    func checkWrite(_ request: HTTPRequest, session: OperatorSession?) throws {
        try checkOrigin(request)
        guard let session else { return }
        guard let token = request.headers[Self.csrfHeader],
            SHA256Digest.constantTimeEquals(Array(token.utf8), Array(session.csrfToken.utf8))
        else {
            throw HTTPError(
                status: 403, code: "csrf_token_missing",
                message: "a write made with a console session must carry the session's \(Self.csrfHeader) header")
        }
    }

    /// An `Origin` header, when a browser sends one, must be this server's (its `Host`) or a configured one.
    func checkOrigin(_ request: HTTPRequest) throws {
        guard let origin = request.headers["Origin"] else { return }
        if settings.allowedOrigins.contains(origin) { return }
        if let host = request.headers["Host"], origin == "http://\(host)" || origin == "https://\(host)" { return }
        throw HTTPError(
            status: 403, code: "origin_refused", message: "requests from \(origin) may not use a console session")
    }

    /// A new session and the browser token to set.
    struct SignedIn {
        var id: String
        var session: OperatorSession
        var account: OperatorRecord
        var browserToken: String
    }

    /// What a right password leads to: a session, or (with two-factor sign-in on) a challenge to answer with a
    /// code at `POST /v1/session/second-factor`.
    enum SignInOutcome {
        case signedIn(SignedIn)
        case secondFactorRequired(challenge: String, expiresAt: Int64, account: OperatorRecord)
    }

    /// The failure buckets a sign-in by `name` from `address` and `browserToken` counts in.
    ///
    /// Failures count against the address and the account, except from a browser (its `tidings_browser`
    /// token) or address the operator signed in from before (``ConsoleSessionSettings/trustedSignInLifetime``):
    /// a trusted browser has a failure bucket of its own instead, and neither is held back by the account's
    /// limit. So someone guessing `admin`'s password (or codes) from elsewhere slows only themselves.
    func buckets(name: String, address: String, browserToken: String?) throws -> (
        all: [SignInThrottle.Bucket], account: SignInThrottle.Bucket, trusted: Bool
    ) {
        let since = now - Int64(settings.trustedSignInLifetime * 1000)
        let browser = browserToken.map { SignInTrust(kind: .browser, digest: SHA256Digest.hash($0)) }
        let place = SignInTrust(kind: .address, digest: SHA256Digest.hash(address))
        let trustedBrowser = try browser.map { try store.isTrusted($0, operatorName: name, since: since) } ?? false
        let trusted = try trustedBrowser || store.isTrusted(place, operatorName: name, since: since)
        // Buckets are named by digest: the store keeps neither addresses nor the names typed (a password typed
        // into the name field among them), and a name's length does not reach the store.
        let account = SignInThrottle.Bucket(
            name: "account:" + SHA256Digest.hex(SHA256Digest.hash(name.lowercased())),
            limit: settings.failedSignInsPerAccount)
        var all = [
            trustedBrowser
                ? SignInThrottle.Bucket(
                    name: "browser:" + SHA256Digest.hex(browser?.digest ?? []), limit: settings.failedSignInsPerAddress)
                : SignInThrottle.Bucket(
                    name: "address:" + SHA256Digest.hex(place.digest), limit: settings.failedSignInsPerAddress)
        ]
        if !trusted { all.append(account) }
        return (all, account, trusted)
    }

    /// Signs in: checks the password (a missing account costs the same hash) within the limits of
    /// ``buckets(name:address:browserToken:)``, then starts a session, or a challenge when the operator has
    /// two-factor sign-in on.
    func signIn(name: String, password: String, address: String, browserToken: String?) throws -> SignInOutcome {
        let (buckets, accountBucket, trusted) = try self.buckets(
            name: name, address: address, browserToken: browserToken)
        try throttle.check(buckets)
        let account = try store.operatorAccount(named: name)
        guard PasswordHash.verify(password, against: account?.passwordHash ?? PasswordHash.decoy), let account else {
            try throttle.fail(buckets)
            throw HTTPError(status: 401, code: "invalid_credentials", message: "the name or password is wrong")
        }
        if try secondFactors.isEnabled(operatorName: account.name) {
            let token = Base64URL.encode(SecureRandom.bytes(32))
            let date = now
            let expiresAt = date + Int64(settings.signInChallengeLifetime * 1000)
            try store.createSignInChallenge(
                SignInChallenge(
                    idDigest: SHA256Digest.hash(token), operatorName: account.name, createdAt: date,
                    expiresAt: expiresAt))
            try store.removeExpiredSignInChallenges(before: date)
            return .secondFactorRequired(challenge: token, expiresAt: expiresAt, account: account)
        }
        if !trusted { try throttle.clear(accountBucket) }
        return .signedIn(try startSession(account, address: address, browserToken: browserToken))
    }

    /// Completes a sign-in with the code (TOTP or recovery) for a challenge a right password got.
    ///
    /// Each try counts against the challenge (``ConsoleSessionSettings/codeTriesPerChallenge``, then it is
    /// gone) and a wrong code also against the buckets a wrong password would, so codes cannot be guessed
    /// faster than passwords; a trusted browser is not held back by guesses made elsewhere.
    /// - Throws: 401 `challenge_expired` for an unknown, used, expired or exhausted challenge; 401
    ///   `invalid_code`; 429 past a limit.
    /// - Parameter refused: told the operator and status of a refusal once the challenge names the operator,
    ///   for the audit log.
    func completeSignIn(
        challenge token: String, code: String, address: String, browserToken: String?,
        refused: (String, Int) -> Void
    ) throws -> SignedIn {
        let digest = SHA256Digest.hash(token)
        guard
            let challenge = try store.tryChallenge(
                idDigest: digest, at: now, maximumTries: settings.codeTriesPerChallenge),
            SHA256Digest.constantTimeEquals(challenge.idDigest, digest)
        else {
            throw HTTPError(
                status: 401, code: "challenge_expired",
                message:
                    "the sign-in challenge is unknown, used, expired or out of tries; sign in with your password again"
            )
        }
        let (buckets, accountBucket, trusted) = try self.buckets(
            name: challenge.operatorName, address: address, browserToken: browserToken)
        do {
            try throttle.check(buckets)
        } catch let error as HTTPError {
            refused(challenge.operatorName, error.status)
            throw error
        }
        guard try secondFactors.verify(operatorName: challenge.operatorName, code: code) else {
            try throttle.fail(buckets)
            refused(challenge.operatorName, 401)
            throw OperatorSecondFactors.invalidCode()
        }
        guard try store.removeSignInChallenge(idDigest: digest),
            let account = try store.operatorAccount(named: challenge.operatorName)
        else { throw Self.expired() }
        if !trusted { try throttle.clear(accountBucket) }
        return try startSession(account, address: address, browserToken: browserToken)
    }

    /// Stores a new session for `account`, and remembers the browser and address as trusted.
    private func startSession(_ account: OperatorRecord, address: String, browserToken: String?) throws -> SignedIn {
        let date = now
        let token = browserToken ?? Base64URL.encode(SecureRandom.bytes(32))
        try store.rememberSignIn(
            SignInTrust(kind: .browser, digest: SHA256Digest.hash(token)), operatorName: account.name, at: date)
        try store.rememberSignIn(
            SignInTrust(kind: .address, digest: SHA256Digest.hash(address)), operatorName: account.name, at: date)
        let id = Base64URL.encode(SecureRandom.bytes(32))
        let session = OperatorSession(
            idDigest: SHA256Digest.hash(id), operatorName: account.name,
            csrfToken: Base64URL.encode(SecureRandom.bytes(24)), createdAt: date, lastSeenAt: date)
        try store.createSession(session)
        // Sign-ins are rare: a good moment to drop what timed out.
        try store.removeExpiredSessions(
            idleBefore: date - Int64(settings.idleTimeout * 1000),
            createdBefore: date - Int64(settings.absoluteTimeout * 1000))
        try throttle.removeStale()
        return SignedIn(id: id, session: session, account: account, browserToken: token)
    }

    /// Whether `account` is an admin who must enrol in two-factor sign-in before doing anything else
    /// (``ConsoleSessionSettings/requireAdminTwoFactor``).
    func mustEnrol(_ account: OperatorRecord) throws -> Bool {
        guard settings.requireAdminTwoFactor, account.role == .admin else { return false }
        return try !secondFactors.isEnabled(operatorName: account.name)
    }

    /// The `Set-Cookie` value that marks this browser as one `token`'s operator signed in from: sent back only
    /// to the sign-in route, kept as long as the trust lasts.
    func browserCookie(_ token: String) -> String {
        var parts = [
            "\(Self.browserCookieName)=\(token)", "Path=/v1/session", "HttpOnly", "SameSite=Strict",
            "Max-Age=\(Int(settings.trustedSignInLifetime))",
        ]
        if settings.secureCookie { parts.append("Secure") }
        return parts.joined(separator: "; ")
    }

    /// The `Set-Cookie` value for a new session, or one that clears it when `id` is nil.
    func cookie(_ id: String?) -> String {
        var parts = ["\(Self.cookieName)=\(id ?? "")", "Path=/", "HttpOnly", "SameSite=Strict"]
        parts.append(id == nil ? "Max-Age=0" : "Max-Age=\(Int(settings.absoluteTimeout))")
        if settings.secureCookie { parts.append("Secure") }
        return parts.joined(separator: "; ")
    }
}
