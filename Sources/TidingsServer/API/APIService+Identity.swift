import Foundation
import TidingsCrypto
import TidingsHTTP
import TidingsModel
import TidingsStore

extension APIService {
    /// The header an SDK sends its installation's secret in, on every write to (or read of) that installation.
    static let installationSecretHeader = "X-Tidings-Installation-Secret"
    /// The header a user token (a JWT signed by the app's backend) travels in.
    static let userTokenHeader = "X-Tidings-User-Token"
    /// How an installation secret starts: `tdg_ins_` and 43 characters of base64url (32 random bytes).
    static let installationSecretPrefix = "tdg_ins_"

    /// The app of `caller`, from a short-lived cache: its settings are read on every installation write.
    func app(of caller: APICaller) throws -> AppRecord { try app(id: caller.appID) }

    /// The app `id`, from a short-lived cache: its settings are read on every request.
    func app(id: String) throws -> AppRecord {
        let app = try appCache.value(for: id, now: clock.now, lifetime: configuration.keyCacheSeconds) {
            try store.app(id: id)
        }
        guard let app else { throw HTTPError(status: 404, code: "not_found", message: "there is no app \(id)") }
        return app
    }

    /// The user id a request's user token proves, or nil when it carries none.
    ///
    /// The token is verified against the app's identity keys: signature, algorithm bound to the key, audience
    /// (the app id), expiry with a minute of clock skew, and a lifetime of at most 24 hours.
    /// - Throws: 401 `identity_token_expired` for an expired token, 401 `identity_token_invalid` naming the
    ///   check that failed for any other.
    func verifiedUser(_ request: HTTPRequest, app: AppRecord) throws -> String? {
        try verifiedUserToken(request, app: app)?.subject
    }

    /// The claims of a request's user token, verified as ``verifiedUser(_:app:)`` does; nil when it carries none.
    func verifiedUserToken(_ request: HTTPRequest, app: AppRecord) throws -> JWTClaims? {
        guard let token = request.headers[Self.userTokenHeader], !token.isEmpty else { return nil }
        let verifier = try identityVerifier(appID: app.id)
        guard !verifier.keys.isEmpty else {
            throw refuse(
                401, "identity_token_invalid", "the app has no identity keys to verify user tokens with")
        }
        do {
            return try verifier.verify(token, audience: app.id, now: clock.now)
        } catch {
            if error.code == .expired {
                throw refuse(401, "identity_token_expired", "the user token expired: \(error.message)")
            }
            throw refuse(401, "identity_token_invalid", "the user token was refused: \(error.message)")
        }
    }

    /// Refuses a request that acts for `userID` (binds an installation to it, clears it, reads or changes its
    /// tags) without the proof the app's identity setting asks for. Server keys are never limited.
    /// - Parameter verified: what ``verifiedUser(_:app:)`` returned for the request.
    func requireIdentity(of userID: String, verified: String?, caller: APICaller, app: AppRecord) throws {
        guard caller.kind == .app, app.identityVerification != .off else { return }
        guard let verified else {
            if app.identityVerification == .required {
                throw refuse(
                    401, "identity_token_required",
                    "this app requires a user token (\(Self.userTokenHeader)) to act for a user")
            }
            return
        }
        guard verified == userID else {
            throw refuse(
                401, "identity_token_invalid", "the user token is for another user than the one this request names")
        }
    }

    /// Refuses an app key's access to an installation that holds a secret unless the request presents it.
    /// An installation without one (registered before secrets existed) is open until it claims one.
    /// - Throws: 403 `installation_secret_required` or `installation_secret_invalid`.
    func requireOwnership(of installation: Installation?, _ request: HTTPRequest, caller: APICaller) throws {
        guard caller.kind == .app, let expected = installation?.secretDigest else { return }
        guard let presented = request.headers[Self.installationSecretHeader], !presented.isEmpty else {
            throw refuse(
                403, "installation_secret_required",
                "this installation belongs to the app instance that created it: send its secret in \(Self.installationSecretHeader)"
            )
        }
        guard SHA256Digest.constantTimeEquals(SHA256Digest.hash(presented), expected) else {
            throw refuse(403, "installation_secret_invalid", "the installation secret is not this installation's")
        }
    }

    /// A new installation secret and the digest the store keeps of it.
    static func issueInstallationSecret() -> (secret: String, digest: [UInt8]) {
        let secret = installationSecretPrefix + Base64URL.encode(SecureRandom.bytes(32))
        return (secret, SHA256Digest.hash(secret))
    }

    /// The app's identity keys as a verifier, cached like keys: a rotation bites as soon as the store announces
    /// it, and within the cache's life at most.
    private func identityVerifier(appID: String) throws -> JWTVerifier {
        let verifier = try identityCache.value(for: appID, now: clock.now, lifetime: configuration.keyCacheSeconds) {
            var keys: [JWTVerifier.Key] = []
            for record in try store.identityKeys(appID: appID) {
                // Keys are checked when they are added; one that no longer reads is left out rather than failing
                // all.
                if let key = try? JWTVerifier.Key(id: record.keyID, pem: record.publicKeyPEM) { keys.append(key) }
            }
            return JWTVerifier(keys: keys)
        }
        // The loader never answers nil.
        return verifier ?? JWTVerifier(keys: [])
    }
}
