import COpenSSL

/// HMAC-SHA1 (RFC 2104) through OpenSSL: the MAC of HOTP and TOTP (RFC 4226, RFC 6238), which authenticator apps
/// expect. SHA-1's collisions do not weaken HMAC.
public enum HMACSHA1 {
    /// The 20-byte authentication code of `message` under `key`.
    public static func authenticationCode(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var code = [UInt8](repeating: 0, count: 20)
        var length: UInt32 = 0
        let result = key.withUnsafeBytes { keyBytes in
            message.withUnsafeBytes { messageBytes in
                code.withUnsafeMutableBytes { output in
                    HMAC(
                        EVP_sha1(), keyBytes.baseAddress, Int32(keyBytes.count),
                        messageBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), messageBytes.count,
                        output.baseAddress!.assumingMemoryBound(to: UInt8.self), &length)
                }
            }
        }
        // HMAC fails only when OpenSSL cannot allocate; no caller could recover from that.
        precondition(result != nil && length == 20, "HMAC(SHA-1) failed")
        return code
    }
}
