import COpenSSL
import Foundation

/// An EC P-256 key (private or public only) for ES256 signatures, held by OpenSSL.
///
/// ```swift
/// let key = try ES256Key(pem: String(contentsOfFile: "AuthKey_ABC123DEFG.p8"))
/// let signature = try key.sign(Array("header.claims".utf8))   // 64 bytes, r || s
/// key.publicKey().verify(signature, for: Array("header.claims".utf8))   // true
/// ```
///
/// Signatures are in the JWS form (RFC 7518 §3.4): the raw 32-byte `r` and `s`, left-padded and
/// concatenated, not OpenSSL's DER `ECDSA-Sig-Value`.
public final class ES256Key: @unchecked Sendable {
    // @unchecked: the EVP_PKEY is never mutated after init; OpenSSL 3 allows concurrent use of a const key.
    private let key: OpaquePointer
    /// Whether the private half is present.
    public let isPrivate: Bool

    private init(key: OpaquePointer, isPrivate: Bool) throws(APNsCredentialError) {
        self.key = key
        self.isPrivate = isPrivate
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_EC else {
            throw APNsCredentialError(.notP256, "the key is not an EC key; APNs needs an EC P-256 (ES256) key")
        }
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1,
            String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self) == "prime256v1"
        else {
            throw APNsCredentialError(.notP256, "the EC key is not on curve P-256 (prime256v1), which ES256 needs")
        }
    }

    deinit {
        EVP_PKEY_free(key)
    }

    /// Reads a PEM private key (`-----BEGIN PRIVATE KEY-----`, PKCS#8, as in Apple's `.p8` files) or a
    /// PEM public key (`-----BEGIN PUBLIC KEY-----`).
    /// - Throws: ``APNsCredentialError`` `invalid_key` when it is neither, `not_p256` for another kind of key.
    public convenience init(pem: String) throws(APNsCredentialError) {
        let isPublic = pem.contains("-----BEGIN PUBLIC KEY-----")
        let parsed: OpaquePointer? = Array(pem.utf8).withUnsafeBytes { bytes in
            guard let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count)) else { return nil }
            defer { BIO_free(bio) }
            // A nil password callback with a nil passphrase refuses encrypted keys instead of prompting.
            return isPublic
                ? PEM_read_bio_PUBKEY(bio, nil, nil, nil) : PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil)
        }
        ERR_clear_error()
        guard let parsed else {
            throw APNsCredentialError(
                .invalidKey,
                "not a readable PEM \(isPublic ? "public" : "private") key (an unencrypted PKCS#8 .p8 file)")
        }
        try self.init(key: parsed, isPrivate: !isPublic)
    }

    /// Reads a PEM key from `path`.
    public convenience init(contentsOfFile path: String) throws(APNsCredentialError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw APNsCredentialError(.unreadableFile, "cannot read the key file \(path)")
        }
        try self.init(pem: String(decoding: data, as: UTF8.self))
    }

    /// A new random P-256 private key (tests and the emulator's fixtures).
    public static func generate() -> ES256Key {
        // Fails only when OpenSSL cannot allocate or lacks the EC provider; nothing could continue then.
        guard let key = tidings_generate_p256_key(), let generated = try? ES256Key(key: key, isPrivate: true) else {
            preconditionFailure("EVP_EC_gen(P-256) failed")
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
    public func publicKey() -> ES256Key {
        // Re-reading our own PEM output cannot fail.
        guard let key = try? ES256Key(pem: publicKeyPEM()) else { preconditionFailure("public key round trip failed") }
        return key
    }

    /// The ES256 signature of `message` (SHA-256, ECDSA), 64 bytes `r || s`.
    /// - Throws: `signing_failed` for a public key or when OpenSSL fails.
    public func sign(_ message: [UInt8]) throws(APNsCredentialError) -> [UInt8] {
        guard isPrivate else { throw APNsCredentialError(.signingFailed, "cannot sign with a public key") }
        guard let context = EVP_MD_CTX_new() else { throw APNsCredentialError(.signingFailed, "EVP_MD_CTX_new failed") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else {
            ERR_clear_error()
            throw APNsCredentialError(.signingFailed, "EVP_DigestSignInit failed")
        }
        var length = 0
        var der = [UInt8](repeating: 0, count: 80)
        length = der.count
        let status = message.withUnsafeBufferPointer { input in
            EVP_DigestSign(context, &der, &length, input.baseAddress, input.count)
        }
        guard status == 1, let raw = ECDSASignature.raw(fromDER: Array(der.prefix(length))) else {
            ERR_clear_error()
            throw APNsCredentialError(.signingFailed, "EVP_DigestSign failed")
        }
        return raw
    }

    /// Whether `signature` (64 bytes `r || s`) is a valid ES256 signature of `message` by this key.
    public func verify(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        guard let der = ECDSASignature.der(fromRaw: signature), let context = EVP_MD_CTX_new() else { return false }
        defer {
            EVP_MD_CTX_free(context)
            ERR_clear_error()
        }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return false }
        return message.withUnsafeBufferPointer { input in
            EVP_DigestVerify(context, der, der.count, input.baseAddress, input.count)
        } == 1
    }
}
