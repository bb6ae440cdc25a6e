import COpenSSL

/// HMAC-SHA1 (RFC 2104) through OpenSSL: the MAC of HOTP and TOTP (RFC 4226, RFC 6238), which authenticator apps
/// expect. SHA-1's collisions do not weaken HMAC.
public enum HMACSHA1 {
    /// The 20-byte authentication code of `message` under `key`.
    public static func authenticationCode(key: [UInt8], message: [UInt8]) -> [UInt8] {
        OpenSSLHMAC.authenticationCode(digest: EVP_sha1(), length: 20, key: key, message: message)
    }
}
