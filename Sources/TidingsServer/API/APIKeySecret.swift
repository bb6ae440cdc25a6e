import Foundation
import TidingsCrypto
import TidingsStore

/// Makes keys and ids: `tdg_app_` or `tdg_srv_` followed by 32 random bytes in base64url (43 characters).
///
/// The key itself is shown once, when it is made; the store keeps only its SHA-256 digest.
public enum APIKeySecret {
    /// A new key of `kind` for `appID` and the record to store for it.
    public static func issue(appID: String, kind: APIKeyKind, now: Int64) -> (secret: String, record: APIKeyRecord) {
        let secret = kind.prefix + Base64URL.encode(SecureRandom.bytes(32))
        let record = APIKeyRecord(
            id: makeID(prefix: "key_"), appID: appID, kind: kind, hash: SHA256Digest.hash(secret),
            hint: String(secret.prefix(kind.prefix.count + 4)) + "…", createdAt: now)
        return (secret, record)
    }

    /// The kind a presented key claims by its prefix, or nil when it has neither prefix or the wrong length.
    public static func kind(of secret: String) -> APIKeyKind? {
        guard secret.utf8.count == 8 + 43 else { return nil }
        return APIKeyKind.allCases.first { secret.hasPrefix($0.prefix) }
    }

    /// A random id such as `app_3f9c0a1b2c4d5e6f`: the prefix and 16 hex digits.
    public static func makeID(prefix: String) -> String {
        prefix + SHA256Digest.hex(SecureRandom.bytes(8))
    }
}
