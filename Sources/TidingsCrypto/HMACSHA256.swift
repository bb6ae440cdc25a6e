import COpenSSL

/// HMAC-SHA256 (RFC 2104) through OpenSSL: what signs and verifies forwarded webhook batches.
///
/// ```swift
/// let tag = HMACSHA256.authenticationCode(key: Array(secret.utf8), message: Array("\(timestamp).".utf8) + body)
/// let valid = HMACSHA256.isValid(tag, key: Array(secret.utf8), message: signed)
/// ```
public enum HMACSHA256 {
    /// The 32-byte authentication code of `message` under `key`.
    public static func authenticationCode(key: [UInt8], message: [UInt8]) -> [UInt8] {
        OpenSSLHMAC.authenticationCode(digest: EVP_sha256(), length: 32, key: key, message: message)
    }

    /// Whether `code` is the authentication code of `message` under `key`, compared in constant time.
    public static func isValid(_ code: [UInt8], key: [UInt8], message: [UInt8]) -> Bool {
        SHA256Digest.constantTimeEquals(code, authenticationCode(key: key, message: message))
    }
}
