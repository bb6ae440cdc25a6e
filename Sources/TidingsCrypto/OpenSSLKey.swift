import COpenSSL

/// An OpenSSL `EVP_PKEY` (private, or public only): reads and writes PEM, and signs and verifies with
/// SHA-256. The algorithm-specific keys (``ES256Key``, ``RS256Key``) wrap one and check its kind.
///
/// ```swift
/// let key = try OpenSSLKey(pem: pem)
/// let signature = try key.sign(Array("header.claims".utf8))   // the key's native form (DER for ECDSA)
/// key.publicKey().verify(signature, for: Array("header.claims".utf8))   // true
/// ```
final class OpenSSLKey: @unchecked Sendable {
    // @unchecked: the EVP_PKEY is never mutated after init; OpenSSL 3 allows concurrent use of a const key.
    private let key: OpaquePointer
    /// Whether the private half is present.
    let isPrivate: Bool

    /// Takes ownership of `key`: it is freed with this value.
    init(taking key: OpaquePointer, isPrivate: Bool) {
        self.key = key
        self.isPrivate = isPrivate
    }

    deinit {
        EVP_PKEY_free(key)
    }

    /// Reads a PEM private key (`-----BEGIN PRIVATE KEY-----`, PKCS#8, or a traditional one such as
    /// `-----BEGIN RSA PRIVATE KEY-----`) or a PEM public key (`-----BEGIN PUBLIC KEY-----`).
    /// - Throws: ``OpenSSLKeyError/unreadablePEM(isPublic:)`` when OpenSSL cannot read it, or it is encrypted.
    convenience init(pem: String) throws(OpenSSLKeyError) {
        let isPublic = pem.contains("-----BEGIN PUBLIC KEY-----")
        let parsed: OpaquePointer? = Array(pem.utf8).withUnsafeBytes { bytes in
            guard let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count)) else { return nil }
            defer { BIO_free(bio) }
            // A password callback answering nothing refuses encrypted keys instead of prompting.
            return isPublic
                ? PEM_read_bio_PUBKEY(bio, nil, nil, nil) : PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil)
        }
        ERR_clear_error()
        guard let parsed else { throw .unreadablePEM(isPublic: isPublic) }
        self.init(taking: parsed, isPrivate: !isPublic)
    }

    /// OpenSSL's base type of the key (`EVP_PKEY_EC`, `EVP_PKEY_RSA`...).
    var baseID: Int32 { EVP_PKEY_get_base_id(key) }

    /// The key size in bits (the modulus of an RSA key, the field of an EC key).
    var bits: Int { Int(EVP_PKEY_get_bits(key)) }

    /// The curve name of an EC key (`prime256v1` for P-256); nil for a key without one.
    var groupName: String? {
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1 else {
            ERR_clear_error()
            return nil
        }
        return String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The public key as PEM (`-----BEGIN PUBLIC KEY-----`).
    func publicKeyPEM() -> String {
        PEMEncoding.write { bio in PEM_write_bio_PUBKEY(bio, key) }
    }

    /// The private key as unencrypted PKCS#8 PEM; nil for a public key. Handle with care: never log it.
    func privateKeyPEM() -> String? {
        guard isPrivate else { return nil }
        return PEMEncoding.write { bio in PEM_write_bio_PrivateKey(bio, key, nil, nil, 0, nil, nil) }
    }

    /// The public half as its own key.
    func publicKey() -> OpenSSLKey {
        // Re-reading our own PEM output cannot fail.
        guard let key = try? OpenSSLKey(pem: publicKeyPEM()) else {
            preconditionFailure("public key round trip failed")
        }
        return key
    }

    /// The signature of the SHA-256 digest of `message`, in OpenSSL's form for the key: DER
    /// `ECDSA-Sig-Value` for EC, PKCS#1 v1.5 (OpenSSL's default padding, which RS256 means) for RSA.
    /// - Throws: ``OpenSSLKeyError`` for a public key or when OpenSSL fails.
    func sign(_ message: [UInt8]) throws(OpenSSLKeyError) -> [UInt8] {
        guard isPrivate else { throw .publicKeyCannotSign }
        guard let context = EVP_MD_CTX_new() else { throw .failed("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else {
            ERR_clear_error()
            throw .failed("EVP_DigestSignInit")
        }
        // The largest signature the key can make; EVP_DigestSign says how much it wrote.
        var length = Int(EVP_PKEY_get_size(key))
        var signature = [UInt8](repeating: 0, count: length)
        let status = message.withUnsafeBufferPointer { input in
            EVP_DigestSign(context, &signature, &length, input.baseAddress, input.count)
        }
        guard status == 1 else {
            ERR_clear_error()
            throw .failed("EVP_DigestSign")
        }
        return Array(signature.prefix(length))
    }

    /// Whether `signature` (in OpenSSL's form for the key, as ``sign(_:)`` makes it) is a valid signature
    /// of the SHA-256 digest of `message` by this key.
    func verify(_ signature: [UInt8], for message: [UInt8]) -> Bool {
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
