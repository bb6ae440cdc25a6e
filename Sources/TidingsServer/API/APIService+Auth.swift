import Foundation
import TidingsCrypto
import TidingsHTTP
import TidingsModel
import TidingsStore

extension APIService {
    /// Who may call an endpoint.
    enum Access {
        /// App and server keys.
        case anyKey
        /// Server keys only.
        case serverKey
        /// Admin keys only: the administration API.
        case adminKey
    }

    /// The caller of `request`, checked against `access`.
    ///
    /// The presented key is hashed, looked up by its digest (an attacker cannot steer a digest, so the
    /// index lookup reveals nothing), and the stored digest compared in constant time. Keys never reach logs.
    ///
    /// The key is checked before the client address's failed-authentication bucket, so a valid key is never
    /// refused for the failures of others at the same address (every client of a proxy that is not trusted,
    /// an office behind one NAT); only failures are counted and refused there.
    /// - Throws: 401 for a missing, malformed, unknown or revoked key; 403 for a key without the right.
    ///   429 for a failure from a client address that failed too often lately, or a key over its rate.
    /// - Parameter limited: false checks the key without taking from its rate (a check made again by the handler).
    func authenticate(_ request: HTTPRequest, _ access: Access, limited: Bool = true) throws -> APICaller {
        // A console session stands in for a key when no key is presented (APIService+Session.swift).
        if request.headers["Authorization"] == nil, let caller = try sessionCaller(request, access) { return caller }
        let key: APIKeyRecord
        do {
            key = try presentedKey(request, access)
        } catch let error as HTTPError where error.status == 401 {
            let address = clientAddress(request)
            if case .denied(let wait) = authenticationFailures.acquire(address) {
                metrics.rateLimited()
                logger.debug(
                    "failed authentication refused: too many from the client address",
                    metadata: ["client": address, "code": error.code])
                throw HTTPError.rateLimited(limit: configuration.failedAuthenticationLimit, retryAfterSeconds: wait)
            }
            logger.info("failed authentication", metadata: ["client": address, "code": error.code])
            throw error
        }
        let limit = try rateLimit(of: key)
        if limited {
            // This instance's bucket first; then, in a cluster, the key's share of the rate over every instance.
            var decision = keyLimiter.acquire(key.id, limit: limit)
            if decision.isAllowed, let shared = sharedKeyRates { decision = shared.take(key.id, limit: limit) }
            if case .denied(let wait) = decision {
                metrics.rateLimited()
                throw HTTPError.rateLimited(limit: limit, retryAfterSeconds: wait)
            }
        }
        var installationID: String?
        if let header = request.headers[TidingsAPI.installationHeader], !header.isEmpty {
            installationID = header
        }
        return APICaller(appID: key.appID, key: key, installationID: installationID)
    }

    /// The limit of `key`: its app's `requests_per_second` when set, else its kind's default.
    private func rateLimit(of key: APIKeyRecord) throws -> RateLimit {
        let fallback = configuration.keyRateLimits[key.kind]
        guard key.kind != .admin, let rate = try app(id: key.appID).requestsPerSecond else { return fallback }
        return RateLimit(burst: 2 * rate, perSecond: Double(rate))
    }

    /// The stored key the request presents, checked against `access`.
    private func presentedKey(_ request: HTTPRequest, _ access: Access) throws -> APIKeyRecord {
        guard let authorization = request.headers["Authorization"] else {
            throw refuse(401, "unauthorized", "send your key as 'Authorization: Bearer <key>'")
        }
        guard let secret = Self.bearerCredential(authorization) else {
            throw refuse(401, "unauthorized", "the Authorization header must be 'Bearer <key>'")
        }
        guard let claimedKind = APIKeySecret.kind(of: secret) else {
            throw refuse(401, "invalid_key", "the key is not a Tidings key (tdg_app_…, tdg_srv_… or tdg_adm_…)")
        }
        let digest = SHA256Digest.hash(secret)
        guard let key = try lookUpKey(digest: digest), SHA256Digest.constantTimeEquals(key.hash, digest),
            key.kind == claimedKind
        else {
            throw refuse(401, "invalid_key", "the key is not known")
        }
        if key.isRevoked {
            throw refuse(401, "revoked_key", "the key was revoked")
        }
        switch (access, key.kind) {
        case (.adminKey, .admin), (.serverKey, .server), (.anyKey, .app), (.anyKey, .server): break
        case (.adminKey, _):
            throw refuse(403, "forbidden", "this endpoint needs an admin key; app and server keys may not administer")
        case (_, .admin):
            throw refuse(403, "forbidden", "an admin key belongs to no app; use an app or server key for app data")
        case (.serverKey, _):
            throw refuse(403, "forbidden", "this endpoint needs a server key; app keys may not read data")
        }
        return key
    }

    /// The credential of `Bearer <credential>` (the scheme in any letter case, spaces around either part),
    /// or nil for another scheme or shape. Every keyed request parses it, so it reads bytes: splitting the
    /// header into Substrings and lower-casing the scheme was a third of authenticating one.
    static func bearerCredential(_ authorization: String) -> String? {
        var authorization = authorization
        return authorization.withUTF8 { bytes -> String? in
            let space = UInt8(ascii: " ")
            guard let schemeStart = bytes.firstIndex(where: { $0 != space }) else { return nil }
            let afterScheme = bytes[schemeStart...].firstIndex(of: space) ?? bytes.endIndex
            let scheme = bytes[schemeStart..<afterScheme]
            // ASCII case folding: `| 0x20` lower-cases a letter and makes no other byte equal to one.
            guard scheme.count == 6, zip(scheme, "bearer".utf8).allSatisfy({ $0 | 0x20 == $1 }) else { return nil }
            guard let start = bytes[afterScheme...].firstIndex(where: { $0 != space }) else { return nil }
            let end = bytes[start...].firstIndex(of: space) ?? bytes.endIndex
            guard bytes[end...].allSatisfy({ $0 == space }) else { return nil }
            return String(decoding: bytes[start..<end], as: UTF8.self)
        }
    }

    func lookUpKey(digest: [UInt8]) throws -> APIKeyRecord? {
        try keyCache.value(for: digest, now: clock.now, lifetime: configuration.keyCacheSeconds) {
            try store.key(hash: digest)
        }
    }

    /// The address `request` comes from: its TCP peer, or the client a trusted proxy names
    /// (``TidingsAPI/Configuration/trustedProxies``); `unknown` for an in-process request.
    func clientAddress(_ request: HTTPRequest) -> String {
        configuration.trustedProxies.clientAddress(peer: request.remoteAddress, headers: request.headers) ?? "unknown"
    }

    func refuse(_ status: Int, _ code: String, _ message: String) -> HTTPError {
        metrics.authenticationFailed(status: status)
        return HTTPError(status: status, code: code, message: message)
    }

    /// Refuses an app key that does not speak for an installation of `userID`: the request must name its
    /// installation (`X-Tidings-Installation`), prove it owns it (its secret), and, as the app's identity
    /// setting asks, prove the user with a user token.
    func requireUserAccess(_ caller: APICaller, userID: String, _ request: HTTPRequest) throws {
        guard caller.kind == .app else { return }
        guard let installationID = caller.installationID else {
            throw refuse(
                403, "forbidden",
                "app keys must name the calling installation in \(TidingsAPI.installationHeader) to use user tags")
        }
        let installation = try store.installation(appID: caller.appID, installationID: installationID)
        guard let installation, installation.userID == userID else {
            throw refuse(403, "forbidden", "the calling installation is not logged in as this user")
        }
        try requireOwnership(of: installation, request, caller: caller)
        let app = try app(of: caller)
        guard app.identityVerification != .off else { return }
        try requireIdentity(of: userID, verified: try verifiedUser(request, app: app), caller: caller, app: app)
    }
}
