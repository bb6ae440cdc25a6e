/// Why a secret could not be sealed or opened, or a key-encryption key could not be read.
///
/// Messages name key ids and the value's place (its context), never key material or the secret itself.
public struct SecretsKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Machine-readable codes.
    public enum Code: String, Sendable {
        /// The key text is not 32 bytes in base64 or hex.
        case invalidKey = "invalid_key"
        /// The value was sealed with a key the keyring does not hold (a missing or wrong key file).
        case unknownKey = "unknown_key"
        /// The value does not authenticate: it was altered, or moved from another row.
        case tampered
        /// The bytes are not an envelope of a version this build reads.
        case malformed
        /// OpenSSL failed (out of memory); nothing about the value is known.
        case cryptoFailed = "crypto_failed"
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
