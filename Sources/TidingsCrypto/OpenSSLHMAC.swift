import COpenSSL

/// One-shot HMAC (RFC 2104) through OpenSSL, for the hash functions the public HMAC types name.
enum OpenSSLHMAC {
    /// The `length`-byte code of `message` under `key` with `digest` (`EVP_sha1()`, `EVP_sha256()`).
    static func authenticationCode(digest: OpaquePointer?, length: Int, key: [UInt8], message: [UInt8]) -> [UInt8] {
        var code = [UInt8](repeating: 0, count: length)
        var written: UInt32 = 0
        let result = key.withUnsafeBytes { keyBytes in
            message.withUnsafeBytes { messageBytes in
                code.withUnsafeMutableBytes { output in
                    HMAC(
                        digest, keyBytes.baseAddress, Int32(keyBytes.count),
                        messageBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), messageBytes.count,
                        output.baseAddress!.assumingMemoryBound(to: UInt8.self), &written)
                }
            }
        }
        // HMAC fails only when OpenSSL cannot allocate; no caller could recover from that.
        precondition(result != nil && Int(written) == length, "HMAC failed")
        return code
    }
}
