import TidingsCrypto

/// Why an FCM service account (its JSON file or its RSA key) could not be used.
///
/// Messages name the file, the field or the rule that was broken; they never contain key material.
public struct FCMCredentialError: KeyErrorCarrying, Sendable, Equatable, CustomStringConvertible {
    /// Machine-readable codes.
    public enum Code: String, Sendable {
        /// The service-account file could not be read.
        case unreadableFile = "unreadable_file"
        /// The file is not a JSON object.
        case malformedJSON = "malformed_json"
        /// A required field (`project_id`, `client_email`, `private_key`) is missing or not a string.
        case missingField = "missing_field"
        /// A field is present but unusable (`type` is not `service_account`, `token_uri` is not a URL...).
        case invalidField = "invalid_field"
        /// `private_key` is not a PEM private key OpenSSL can read.
        case invalidKey = "invalid_key"
        /// The key is readable but not RSA, or shorter than 2048 bits, as RS256 requires.
        case notRSA = "not_rsa"
        /// OpenSSL failed to sign or to encode.
        case signingFailed = "signing_failed"
        /// The stored service account could not be written or read back.
        case storageFailed = "storage_failed"
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    /// The key's own error under this provider's codes (`not_rsa` for a key of the wrong kind).
    public init(_ error: KeyError) {
        switch error.code {
        case .unreadableFile: self.init(.unreadableFile, error.message)
        case .invalidKey: self.init(.invalidKey, error.message)
        case .wrongKind: self.init(.notRSA, error.message)
        case .signingFailed: self.init(.signingFailed, error.message)
        }
    }
}
