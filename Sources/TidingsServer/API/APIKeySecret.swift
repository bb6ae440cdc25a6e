import COpenSSL
import Foundation

/// Makes keys and ids: `tdg_app_` or `tdg_srv_` followed by 32 random bytes in base64url (43 characters).
///
/// The key itself is shown once, when it is made; the store keeps only its SHA-256 digest.
public enum APIKeySecret {
    /// A new key of `kind` for `appID` and the record to store for it.
    public static func issue(appID: String, kind: APIKeyKind, now: Int64) -> (secret: String, record: APIKeyRecord) {
        let secret = kind.prefix + base64URL(randomBytes(32))
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
        prefix + SHA256Digest.hex(randomBytes(8))
    }

    /// `count` bytes from OpenSSL's CSPRNG (falling back to the system generator, also cryptographic).
    static func randomBytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let status = bytes.withUnsafeMutableBytes {
            RAND_bytes($0.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(count))
        }
        if status != 1 {
            var generator = SystemRandomNumberGenerator()
            for index in bytes.indices { bytes[index] = generator.next() }
        }
        return bytes
    }

    /// Base64url without padding (RFC 4648 §5).
    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes base64url with or without padding.
    static func decodeBase64URL(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.utf8.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
