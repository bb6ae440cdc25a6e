import TidingsCrypto

/// Why APNs token credentials (a `.p8` key, its key id and team id) could not be used.
///
/// Messages name the file or the rule that was broken; they never contain key material.
public struct APNsCredentialError: KeyErrorCarrying, Sendable, Equatable, CustomStringConvertible {
    /// Machine-readable codes.
    public enum Code: String, Sendable {
        /// The key file could not be read.
        case unreadableFile = "unreadable_file"
        /// The bytes are not a PEM key OpenSSL can read.
        case invalidKey = "invalid_key"
        /// The key is readable but not an EC key on P-256 (prime256v1), as APNs requires.
        case notP256 = "not_p256"
        /// The key id is not 10 letters or digits.
        case invalidKeyID = "invalid_key_id"
        /// The team id is not 10 letters or digits.
        case invalidTeamID = "invalid_team_id"
        /// The refresh age is outside 20...55 minutes.
        case invalidRefreshAge = "invalid_refresh_age"
        /// OpenSSL failed to sign or to encode.
        case signingFailed = "signing_failed"
        /// The stored credentials could not be written or their metadata read.
        case storageFailed = "storage_failed"
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    /// The key's own error under this provider's codes (`not_p256` for a key of the wrong kind).
    public init(_ error: KeyError) {
        switch error.code {
        case .unreadableFile: self.init(.unreadableFile, error.message)
        case .invalidKey: self.init(.invalidKey, error.message)
        case .wrongKind: self.init(.notP256, error.message)
        case .signingFailed: self.init(.signingFailed, error.message)
        }
    }

    /// Apple's key ids and team ids are 10 ASCII letters or digits.
    static func isValidIdentifier(_ value: String) -> Bool {
        value.utf8.count == 10
            && value.utf8.allSatisfy {
                ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A)
            }
    }

    static func checkIdentifiers(keyID: String, teamID: String) throws(APNsCredentialError) {
        guard isValidIdentifier(keyID) else {
            throw APNsCredentialError(
                .invalidKeyID, "the key id must be 10 letters or digits (got \(keyID.utf8.count) characters)")
        }
        guard isValidIdentifier(teamID) else {
            throw APNsCredentialError(
                .invalidTeamID, "the team id must be 10 letters or digits (got \(teamID.utf8.count) characters)")
        }
    }
}
