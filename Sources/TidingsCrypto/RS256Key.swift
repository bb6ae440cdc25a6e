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
public final class RS256Key: Sendable {
    private let key: OpenSSLKey
    /// Whether the private half is present.
    public var isPrivate: Bool { key.isPrivate }
    /// The modulus size in bits.
    public let bits: Int

    /// RS256 keys shorter than this are refused (RFC 7518 §3.3).
    public static let minimumBits = 2048

    private init(key: OpenSSLKey) throws(KeyError) {
        bits = key.bits
        guard key.baseID == EVP_PKEY_RSA else {
            throw KeyError(.wrongKind, "the key is not an RSA key; RS256 needs an RSA key")
        }
        guard bits >= Self.minimumBits else {
            throw KeyError(
                .wrongKind, "the RSA key has \(bits) bits; RS256 needs at least \(Self.minimumBits)")
        }
        self.key = key
    }

    /// Reads a PEM private key (`-----BEGIN PRIVATE KEY-----`, PKCS#8, as in service-account files, or
    /// `-----BEGIN RSA PRIVATE KEY-----`) or a PEM public key (`-----BEGIN PUBLIC KEY-----`).
    /// - Throws: ``KeyError`` `invalid_key` when it is neither, `wrong_kind` for another kind of key
    ///   or one shorter than 2048 bits.
    public convenience init(pem: String) throws(KeyError) {
        let key: OpenSSLKey
        do {
            key = try OpenSSLKey(pem: pem)
        } catch {
            throw KeyError(.invalidKey, "\(error) (an unencrypted PKCS#8 key)")
        }
        try self.init(key: key)
    }

    /// A new random private key (tests and fake servers).
    public static func generate(bits: Int = 2048) -> RS256Key {
        // Fails only when OpenSSL cannot allocate or lacks the RSA provider; nothing could continue then.
        guard let key = tidings_generate_rsa_key(UInt32(bits)),
            let generated = try? RS256Key(key: OpenSSLKey(taking: key, isPrivate: true))
        else {
            preconditionFailure("EVP_RSA_gen(\(bits)) failed")
        }
        return generated
    }

    /// The public key as PEM (`-----BEGIN PUBLIC KEY-----`).
    public func publicKeyPEM() -> String { key.publicKeyPEM() }

    /// The private key as unencrypted PKCS#8 PEM; nil for a public key. Handle with care: never log it.
    public func privateKeyPEM() -> String? { key.privateKeyPEM() }

    /// The public half as its own key.
    public func publicKey() -> RS256Key {
        // The public half of an RSA key has the same modulus, so it passes the same checks.
        guard let publicKey = try? RS256Key(key: key.publicKey()) else {
            preconditionFailure("public key round trip failed")
        }
        return publicKey
    }

    /// The RS256 signature of `message` (SHA-256, PKCS#1 v1.5 padding), as long as the modulus.
    /// - Throws: `signing_failed` for a public key or when OpenSSL fails.
    public func sign(_ message: [UInt8]) throws(KeyError) -> [UInt8] {
        do {
            return try key.sign(message)
        } catch {
            throw KeyError(.signingFailed, "\(error)")
        }
    }

    /// Whether `signature` is a valid RS256 signature of `message` by this key.
    public func verify(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        key.verify(signature, for: message)
    }
}
