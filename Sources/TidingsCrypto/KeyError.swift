/// Why an ``ES256Key`` or ``RS256Key`` could not be read or could not sign.
///
/// Messages name the file or the rule that was broken; they never contain key material. The APNs and FCM
/// credential errors of `TidingsPush` carry these codes under their own names.
public struct KeyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Machine-readable codes.
    public enum Code: String, Sendable {
        /// The key file could not be read.
        case unreadableFile = "unreadable_file"
        /// The bytes are not a PEM key OpenSSL can read (or it is encrypted).
        case invalidKey = "invalid_key"
        /// The key is readable but of another kind than the algorithm needs (not P-256 for ES256, not RSA of at
        /// least 2048 bits for RS256).
        case wrongKind = "wrong_kind"
        /// OpenSSL failed to sign, or the key is public only.
        case signingFailed = "signing_failed"
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
