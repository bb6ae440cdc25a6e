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
public final class ES256Key: Sendable {
    private let key: OpenSSLKey
    /// Whether the private half is present.
    public var isPrivate: Bool { key.isPrivate }

    private init(key: OpenSSLKey) throws(KeyError) {
        guard key.baseID == EVP_PKEY_EC else {
            throw KeyError(.wrongKind, "the key is not an EC key; ES256 needs an EC P-256 key")
        }
        guard key.groupName == "prime256v1" else {
            throw KeyError(.wrongKind, "the EC key is not on curve P-256 (prime256v1), which ES256 needs")
        }
        self.key = key
    }

    /// Reads a PEM private key (`-----BEGIN PRIVATE KEY-----`, PKCS#8, as in Apple's `.p8` files) or a
    /// PEM public key (`-----BEGIN PUBLIC KEY-----`).
    /// - Throws: ``KeyError`` `invalid_key` when it is neither, `wrong_kind` for another kind of key.
    public convenience init(pem: String) throws(KeyError) {
        let key: OpenSSLKey
        do {
            key = try OpenSSLKey(pem: pem)
        } catch {
            throw KeyError(.invalidKey, "\(error) (an unencrypted PKCS#8 key)")
        }
        try self.init(key: key)
    }

    /// Reads a PEM key from `path`.
    public convenience init(contentsOfFile path: String) throws(KeyError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw KeyError(.unreadableFile, "cannot read the key file \(path)")
        }
        try self.init(pem: String(decoding: data, as: UTF8.self))
    }

    /// A new random P-256 private key (tests and the emulator's fixtures).
    public static func generate() -> ES256Key {
        // Fails only when OpenSSL cannot allocate or lacks the EC provider; nothing could continue then.
        guard let key = tidings_generate_p256_key(),
            let generated = try? ES256Key(key: OpenSSLKey(taking: key, isPrivate: true))
        else {
            preconditionFailure("EVP_EC_gen(P-256) failed")
        }
        return generated
    }

    /// The public key as PEM (`-----BEGIN PUBLIC KEY-----`).
    public func publicKeyPEM() -> String { key.publicKeyPEM() }

    /// The private key as unencrypted PKCS#8 PEM; nil for a public key. Handle with care: never log it.
    public func privateKeyPEM() -> String? { key.privateKeyPEM() }

    /// The public half as its own key.
    public func publicKey() -> ES256Key {
        // The public half of a P-256 key is a P-256 key.
        guard let publicKey = try? ES256Key(key: key.publicKey()) else {
            preconditionFailure("public key round trip failed")
        }
        return publicKey
    }

    /// The ES256 signature of `message` (SHA-256, ECDSA), 64 bytes `r || s`.
    /// - Throws: `signing_failed` for a public key or when OpenSSL fails.
    public func sign(_ message: [UInt8]) throws(KeyError) -> [UInt8] {
        let der: [UInt8]
        do {
            der = try key.sign(message)
        } catch {
            throw KeyError(.signingFailed, "\(error)")
        }
        guard let raw = ECDSASignature.raw(fromDER: der) else {
            throw KeyError(.signingFailed, "EVP_DigestSign failed")
        }
        return raw
    }

    /// Whether `signature` (64 bytes `r || s`) is a valid ES256 signature of `message` by this key.
    public func verify(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        guard let der = ECDSASignature.der(fromRaw: signature) else { return false }
        return key.verify(der, for: message)
    }
}
