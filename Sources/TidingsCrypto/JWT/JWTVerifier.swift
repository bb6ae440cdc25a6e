import Foundation
import TidingsModel

/// Verifies identity tokens: JWTs that an app's own backend signs with ES256 or RS256 to vouch for one of its
/// users, as in Braze's SDK Authentication and OneSignal's identity verification (docs/identity-tokens.md).
///
/// ```swift
/// let verifier = JWTVerifier(keys: [
///     try JWTVerifier.Key(id: "2026-12", pem: currentPublicKeyPEM),
///     try JWTVerifier.Key(id: "2026-06", pem: previousPublicKeyPEM),   // trusted until its tokens age out
/// ])
/// do {
///     let claims = try verifier.verify(token, audience: "app_7Qx2", now: Date())
///     print(claims.subject)   // the user id the backend vouched for
/// } catch let error where error.code == .expired {
///     // identity_token_expired: the app should fetch a fresh token from its backend
/// } catch {
///     // identity_token_invalid; error.message names the check that failed
/// }
/// ```
///
/// Checks, in order, each failing with its own ``JWTError/Code-swift.enum``:
/// 1. The token is a compact JWS of three canonical, unpadded base64url segments, at most
///    ``maximumTokenSize`` bytes, and its header is a JSON object (`malformed`).
/// 2. The header's `alg` is `ES256` or `RS256` (`unsupported_algorithm`); `typ`, when present, is `JWT`, and
///    there is no `crit` (`malformed`).
/// 3. `kid`, when present, names a configured key of that algorithm; without `kid`, every key of that algorithm
///    is tried, which lets an app rotate keys (`unknown_key`).
/// 4. The signature verifies (`bad_signature`); an ES256 signature is the 64-byte JWS form `r || s`, never DER.
/// 5. The payload is a JSON object (`malformed`) with a non-empty string `sub`, an `aud`, and numbers `exp` and
///    `iat` (`missing_claim`); `aud` (a string or an array of strings) contains `audience` (`wrong_audience`).
/// 6. `exp + clockSkew > now` (`expired`); `iat` and, when present, `nbf` are at most `now + clockSkew`
///    (`not_yet_valid`); `exp - iat <= maximumLifetime` (`lifetime_too_long`).
///
/// - Important: The algorithm is bound to the key, never taken on trust from the token: an `ES256` token is
///   only ever checked against EC P-256 keys and an `RS256` token against RSA keys, and `none` and the HMAC
///   algorithms are refused outright, so a public key can never be used as an HMAC secret. Keys come only
///   from configuration: the `jwk`, `jku`, `x5c` and `x5u` header members are ignored.
public struct JWTVerifier: Sendable {
    /// Longer tokens are refused unread (`malformed`).
    public static let maximumTokenSize = 8 * 1024

    /// The keys tokens may be signed with.
    public let keys: [Key]

    /// A verifier trusting `keys`; several keys (even several with the same id) are all tried in turn.
    public init(keys: [Key]) {
        self.keys = keys
    }

    /// The claims of `token` when it is valid for `audience` at `now`.
    ///
    /// - Parameters:
    ///   - token: the compact JWS the app sent.
    ///   - audience: the id of the app the token must be for (its `aud`).
    ///   - now: the current time.
    ///   - maximumLifetime: the longest `exp - iat` accepted.
    ///   - clockSkew: how far the signer's clock may be from ours, both ways.
    /// - Throws: ``JWTError`` naming the first check that failed; `expired` only for an expired but otherwise
    ///   valid token.
    public func verify(
        _ token: String, audience: String, now: Date, maximumLifetime: Duration = .seconds(24 * 3600),
        clockSkew: Duration = .seconds(60)
    ) throws(JWTError) -> JWTClaims {
        let parsed = try JWTCompactToken(token)
        let key = try key(verifying: parsed)
        return try JWTClaims(
            validating: parsed.claims(), keyID: key.id, algorithm: parsed.algorithm,
            .init(audience: audience, now: now, maximumLifetime: maximumLifetime, clockSkew: clockSkew))
    }

    /// The configured key whose signature `token` carries.
    private func key(verifying token: JWTCompactToken) throws(JWTError) -> Key {
        let algorithm = token.algorithm.rawValue
        let candidates: [Key]
        if let keyID = token.keyID {
            let named = keys.filter { $0.id == keyID }
            guard let first = named.first else {
                throw JWTError(.unknownKey, "the header's kid names no configured key")
            }
            candidates = named.filter { $0.algorithm == token.algorithm }
            guard !candidates.isEmpty else {
                throw JWTError(
                    .unknownKey,
                    "the header's kid names an \(first.algorithm.rawValue) key but its alg is \(algorithm); "
                        + "a key verifies only its own algorithm")
            }
        } else {
            candidates = keys.filter { $0.algorithm == token.algorithm }
            guard !candidates.isEmpty else {
                throw JWTError(.unknownKey, "the header has no kid and no \(algorithm) key is configured")
            }
        }
        if token.algorithm == .es256 && token.signature.count != 2 * ECDSASignature.componentLength {
            throw JWTError(
                .badSignature,
                "an ES256 signature is 64 bytes (r || s, RFC 7518 §3.4); this one has \(token.signature.count)")
        }
        for key in candidates where key.verify(token.signature, for: token.signingInput) {
            return key
        }
        throw JWTError(
            .badSignature,
            candidates.count == 1
                ? "the signature does not verify with the \(algorithm) key"
                : "the signature does not verify with any of the \(candidates.count) \(algorithm) keys")
    }
}
