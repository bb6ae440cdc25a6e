/// Why ``JWTVerifier`` refused a token.
///
/// The code is machine-readable; the message says which check failed, never containing the token, its claims
/// or any key material, so both are safe to log. Only ``Code-swift.enum/expired`` means "ask for a fresh token":
/// a server answers `identity_token_expired` for it and `identity_token_invalid` for every other code.
public struct JWTError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Machine-readable codes, one per check.
    public enum Code: String, Sendable, CaseIterable {
        /// Not a compact JWS (three unpadded base64url segments, at most ``JWTVerifier/maximumTokenSize`` bytes),
        /// a header or claims set that is not a JSON object, a `typ` other than `JWT`, a `crit` header, or a
        /// header member or `nbf` of the wrong type.
        case malformed
        /// `alg` is missing or is not `ES256` or `RS256` (`none` and `HS256`/`HS384`/`HS512` included).
        case unsupportedAlgorithm = "unsupported_algorithm"
        /// `kid` names no configured key, names a key of another algorithm, or no key of `alg` is configured.
        case unknownKey = "unknown_key"
        /// The signature does not verify with any candidate key (or is not 64 bytes for ES256).
        case badSignature = "bad_signature"
        /// `aud` does not contain the expected audience, or is neither a string nor an array of strings.
        case wrongAudience = "wrong_audience"
        /// `sub` (a non-empty string), `aud`, `exp` or `iat` (numbers) is missing or of the wrong type.
        case missingClaim = "missing_claim"
        /// `exp` plus the allowed clock skew is not after now.
        case expired
        /// `iat` or `nbf` is later than now plus the allowed clock skew.
        case notYetValid = "not_yet_valid"
        /// `exp - iat` is longer than the maximum lifetime.
        case lifetimeTooLong = "lifetime_too_long"
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
