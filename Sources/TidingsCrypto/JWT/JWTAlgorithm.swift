/// The JWS algorithms Tidings accepts for identity tokens (RFC 7518 §3.1), each bound to one kind of key.
///
/// A closed set on purpose: `none` and the HMAC algorithms (`HS256`...) are never accepted, so a token can only
/// be verified with a public key of its own algorithm, and a public key can never be misused as an HMAC secret.
public enum JWTAlgorithm: String, Sendable, CaseIterable {
    /// ECDSA with P-256 and SHA-256; the signature is 64 bytes `r || s`.
    case es256 = "ES256"
    /// RSASSA-PKCS1-v1_5 with SHA-256, with an RSA key of at least 2048 bits.
    case rs256 = "RS256"
}
