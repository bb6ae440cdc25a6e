import COpenSSL
import Foundation

/// An RSA key (private or public only) for RS256 signatures (RSASSA-PKCS1-v1_5 with SHA-256), held by
/// OpenSSL: the signature of Google's OAuth2 service-account assertions.
///
/// ```swift
/// let key = try RS256Key(pem: serviceAccount.privateKeyPEM)
/// let signature = try key.sign(Array("header.claims".utf8))   // 256 bytes for a 2048-bit key
/// key.publicKey().verify(signature, for: Array("header.claims".utf8))   // true
/// ```
public final class RS256Key: @unchecked Sendable {
    // @unchecked: the EVP_PKEY is never mutated after init; OpenSSL 3 allows concurrent use of a const key.
    private let key: OpaquePointer
    /// Whether the private half is present.
    public let isPrivate: Bool
    /// The modulus size in bits.
    public let bits: Int

    /// RS256 keys shorter than this are refused (RFC 7518 §3.3).
    public static let minimumBits = 2048

    private init(key: OpaquePointer, isPrivate: Bool) throws(FCMCredentialError) {
        self.key = key
        self.isPrivate = isPrivate
        bits = Int(EVP_PKEY_get_bits(key))
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA else {
            throw FCMCredentialError(.notRSA, "the key is not an RSA key; RS256 needs an RSA key")
        }
        guard bits >= Self.minimumBits else {
            throw FCMCredentialError(
                .notRSA, "the RSA key has \(bits) bits; RS256 needs at least \(Self.minimumBits)")
        }
    }

    deinit {
        EVP_PKEY_free(key)
    }

    /// Reads a PEM private key (`-----BEGIN PRIVATE KEY-----`, PKCS#8, as in service-account files, or
    /// `-----BEGIN RSA PRIVATE KEY-----`) or a PEM public key (`-----BEGIN PUBLIC KEY-----`).
    /// - Throws: ``FCMCredentialError`` `invalid_key` when it is neither, `not_rsa` for another kind of key
    ///   or one shorter than 2048 bits.
    public convenience init(pem: String) throws(FCMCredentialError) {
        let isPublic = pem.contains("-----BEGIN PUBLIC KEY-----")
        let parsed: OpaquePointer? = Array(pem.utf8).withUnsafeBytes { bytes in
            guard let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count)) else { return nil }
            defer { BIO_free(bio) }
            // A password callback answering nothing refuses encrypted keys instead of prompting.
            return isPublic
                ? PEM_read_bio_PUBKEY(bio, nil, nil, nil) : PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil)
        }
        ERR_clear_error()
        guard let parsed else {
            throw FCMCredentialError(
                .invalidKey, "not a readable PEM \(isPublic ? "public" : "private") key (an unencrypted PKCS#8 key)")
        }
        // A key refused by the designated init is fully initialised, so deinit frees it.
        try self.init(key: parsed, isPrivate: !isPublic)
    }

    /// A new random private key (tests and fake servers).
    public static func generate(bits: Int = 2048) -> RS256Key {
        // Fails only when OpenSSL cannot allocate or lacks the RSA provider; nothing could continue then.
        guard let key = tidings_generate_rsa_key(UInt32(bits)),
            let generated = try? RS256Key(key: key, isPrivate: true)
        else {
            preconditionFailure("EVP_RSA_gen(\(bits)) failed")
        }
        return generated
    }

    /// The public key as PEM (`-----BEGIN PUBLIC KEY-----`).
    public func publicKeyPEM() -> String {
        PEMEncoding.write { bio in PEM_write_bio_PUBKEY(bio, key) }
    }

    /// The private key as unencrypted PKCS#8 PEM; nil for a public key. Handle with care: never log it.
    public func privateKeyPEM() -> String? {
        guard isPrivate else { return nil }
        return PEMEncoding.write { bio in PEM_write_bio_PrivateKey(bio, key, nil, nil, 0, nil, nil) }
    }

    /// The public half as its own key.
    public func publicKey() -> RS256Key {
        // Re-reading our own PEM output cannot fail.
        guard let key = try? RS256Key(pem: publicKeyPEM()) else { preconditionFailure("public key round trip failed") }
        return key
    }

    /// The RS256 signature of `message` (SHA-256, PKCS#1 v1.5 padding), as long as the modulus.
    /// - Throws: `signing_failed` for a public key or when OpenSSL fails.
    public func sign(_ message: [UInt8]) throws(FCMCredentialError) -> [UInt8] {
        guard isPrivate else { throw FCMCredentialError(.signingFailed, "cannot sign with a public key") }
        guard let context = EVP_MD_CTX_new() else { throw FCMCredentialError(.signingFailed, "EVP_MD_CTX_new failed") }
        defer { EVP_MD_CTX_free(context) }
        // RSA keys sign with PKCS#1 v1.5 padding unless told otherwise, which is what RS256 means.
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else {
            ERR_clear_error()
            throw FCMCredentialError(.signingFailed, "EVP_DigestSignInit failed")
        }
        var length = Int(EVP_PKEY_get_size(key))
        var signature = [UInt8](repeating: 0, count: length)
        let status = message.withUnsafeBufferPointer { input in
            EVP_DigestSign(context, &signature, &length, input.baseAddress, input.count)
        }
        guard status == 1 else {
            ERR_clear_error()
            throw FCMCredentialError(.signingFailed, "EVP_DigestSign failed")
        }
        return Array(signature.prefix(length))
    }

    /// Whether `signature` is a valid RS256 signature of `message` by this key.
    public func verify(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer {
            EVP_MD_CTX_free(context)
            ERR_clear_error()
        }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return false }
        return message.withUnsafeBufferPointer { input in
            EVP_DigestVerify(context, signature, signature.count, input.baseAddress, input.count)
        } == 1
    }
}
