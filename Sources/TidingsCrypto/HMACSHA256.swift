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
        var code = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let result = key.withUnsafeBytes { keyBytes in
            message.withUnsafeBytes { messageBytes in
                code.withUnsafeMutableBytes { output in
                    HMAC(
                        EVP_sha256(), keyBytes.baseAddress, Int32(keyBytes.count),
                        messageBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), messageBytes.count,
                        output.baseAddress!.assumingMemoryBound(to: UInt8.self), &length)
                }
            }
        }
        // HMAC fails only when OpenSSL cannot allocate; no caller could recover from that.
        precondition(result != nil && length == 32, "HMAC(SHA-256) failed")
        return code
    }

    /// Whether `code` is the authentication code of `message` under `key`, compared in constant time.
    public static func isValid(_ code: [UInt8], key: [UInt8], message: [UInt8]) -> Bool {
        SHA256Digest.constantTimeEquals(code, authenticationCode(key: key, message: message))
    }
}
