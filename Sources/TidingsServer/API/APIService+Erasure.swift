import Foundation
import TidingsCrypto
import TidingsHTTP
import TidingsModel
import TidingsStore

/// Erasure's keyed digests and the re-binding rule (docs/security.md, *What erasure does*).
///
/// An erased user id is kept nowhere: where a trail or a count must stay it becomes a pseudonym, `erased:` and
/// the first 16 bytes of an HMAC-SHA256 of the id under the app's erasure key (hex), and the tombstone that
/// refuses a silent re-binding keeps the whole HMAC. The key is random, one per app, stored with the app's data,
/// so a digest is the same on every instance and says nothing about the id to anyone without the store.
extension APIService {
    /// The digest and pseudonym of `userID` in `appID`, creating the app's erasure key on the first erasure.
    func userErasure(appID: String, userID: String) throws -> UserErasure {
        let key = try erasureKey(appID: appID, creating: true) ?? []
        let digest = Self.erasureDigest(userID, key: key)
        return UserErasure(
            appID: appID, userID: userID, pseudonym: Self.pseudonym(digest), digest: digest, erasedAt: now)
    }

    /// The pseudonym of a digest: `erased:` and 32 hex digits.
    static func pseudonym(_ digest: [UInt8]) -> String {
        "erased:" + digest.prefix(16).map { String(format: "%02x", $0) }.joined()
    }

    static func erasureDigest(_ userID: String, key: [UInt8]) -> [UInt8] {
        HMACSHA256.authenticationCode(key: key, message: Array(userID.utf8))
    }

    /// The app's erasure key, nil when the app never erased anyone and `creating` is false. Cached (that the
    /// app has none too) like keys, so a registration of an app that never erased anyone reads nothing.
    func erasureKey(appID: String, creating: Bool) throws -> [UInt8]? {
        let lifetime = configuration.keyCacheSeconds
        if !creating {
            return try erasureKeys.value(for: appID, now: clock.now, lifetime: lifetime) {
                ErasureKeyEntry(key: try storeCall { try store.erasureKey(appID: appID, proposed: nil, now: now) })
            }?.key
        }
        return try storeCall { try store.erasureKey(appID: appID, proposed: SecureRandom.bytes(32), now: now) }
    }

    /// When `userID` of `appID` was erased; nil when never. Cached (also "never") until the store announces an
    /// erasure in the app, so a device registering again as the same user reads nothing.
    func erasedAt(appID: String, userID: String) throws -> Int64? {
        guard let key = try erasureKey(appID: appID, creating: false) else { return nil }
        let digest = Self.erasureDigest(userID, key: key)
        return try tombstones.value(
            for: ErasureTombstoneKey(appID: appID, digest: digest), now: clock.now,
            lifetime: configuration.keyCacheSeconds
        ) {
            ErasureTombstoneEntry(
                appID: appID, erasedAt: try storeCall { try store.userErasedAt(appID: appID, digest: digest) })
        }?.erasedAt
    }

    /// Whether a request that binds an installation to `userID`, erased at `erasedAt`, proves the user came
    /// back: a valid user token for that user issued at or after the erasure (to the second, as `iat` is).
    func provesReturn(of userID: String, erasedAt: Int64, _ request: HTTPRequest, app: AppRecord) -> Bool {
        guard let claims = try? verifiedUserToken(request, app: app), claims.subject == userID else { return false }
        return Int64(claims.issuedAt.timeIntervalSince1970) * 1000 >= erasedAt / 1000 * 1000
    }

    /// Whether `update`, from an app key, binds a user erased since without proving the user came back; only
    /// then do the tombstone's reads happen.
    func refusesErasedUser(_ update: InstallationUpdate, _ request: HTTPRequest, caller: APICaller, app: AppRecord?)
        throws -> Bool
    {
        guard caller.kind == .app, case .set(let user?) = update.userID,
            let erasedAt = try erasedAt(appID: caller.appID, userID: user)
        else { return false }
        return !provesReturn(of: user, erasedAt: erasedAt, request, app: try app ?? self.app(of: caller))
    }

    /// What the audit log records as `request`'s target: its path, except that an erasure names the user's
    /// pseudonym (`/v1/users/erased:…`), so the request that erased the id does not write it down again.
    func auditTarget(_ request: HTTPRequest, appID: String?) -> String {
        let prefix = "/v1/users/"
        guard request.method == "DELETE", request.path.hasPrefix(prefix) else { return request.path }
        let segment = request.path.dropFirst(prefix.count)
        guard !segment.isEmpty, !segment.contains("/") else { return request.path }
        let userID = String(segment).removingPercentEncoding ?? String(segment)
        guard let appID, let key = try? erasureKey(appID: appID, creating: false) else { return prefix + "erased" }
        return prefix + Self.pseudonym(Self.erasureDigest(userID, key: key))
    }

    /// 409 `user_erased`: an app key binding an installation to an erased user without a fresh user token.
    static func userErasedRefusal() -> HTTPError {
        HTTPError(
            status: 409, code: "user_erased",
            message:
                "user_id names a user whose data was erased: bind it again with a user token (\(userTokenHeader)) issued after the erasure, or with the server key"
        )
    }
}
