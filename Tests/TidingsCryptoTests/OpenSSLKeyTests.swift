import COpenSSL
import Foundation
import Testing

@testable import TidingsCrypto

/// The EVP_PKEY holder under ES256Key and RS256Key, and the wrappers' checks and error mapping on top of it.
@Suite("OpenSSL keys")
struct OpenSSLKeyTests {
    static let ec = ES256Key.generate()
    static let rsa = RS256Key.generate()
    static let message = Array("header.claims".utf8)

    @Test func readsBothKindsAndSignsInTheirNativeForm() throws {
        let ec = try OpenSSLKey(pem: try #require(Self.ec.privateKeyPEM()))
        #expect(ec.isPrivate)
        #expect(ec.baseID == EVP_PKEY_EC)
        #expect(ec.groupName == "prime256v1")
        let der = try ec.sign(Self.message)
        // DER ECDSA-Sig-Value, which the ES256 wrapper turns into 64 bytes r || s.
        #expect(der.first == 0x30)
        #expect(ECDSASignature.raw(fromDER: der)?.count == 64)
        #expect(ec.publicKey().verify(der, for: Self.message))
        #expect(!ec.publicKey().verify(der, for: Array("header.claimz".utf8)))

        let rsa = try OpenSSLKey(pem: try #require(Self.rsa.privateKeyPEM()))
        #expect(rsa.baseID == EVP_PKEY_RSA)
        #expect(rsa.bits == 2048)
        #expect(rsa.groupName == nil)
        let signature = try rsa.sign(Self.message)
        #expect(signature.count == 256)
        #expect(rsa.publicKey().verify(signature, for: Self.message))
        #expect(!ec.verify(signature, for: Self.message))
    }

    @Test func publicKeysRoundTripAndCannotSign() throws {
        let publicKey = try OpenSSLKey(pem: Self.rsa.publicKeyPEM())
        #expect(!publicKey.isPrivate)
        #expect(publicKey.privateKeyPEM() == nil)
        #expect(publicKey.publicKeyPEM() == Self.rsa.publicKeyPEM())
        #expect(throws: OpenSSLKeyError.publicKeyCannotSign) { try publicKey.sign(Self.message) }
    }

    @Test(arguments: [
        ("", false),
        ("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", false),
        ("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n", true),
    ])
    func unreadablePEMSaysWhichKindItClaimed(pem: String, isPublic: Bool) {
        #expect(throws: OpenSSLKeyError.unreadablePEM(isPublic: isPublic)) { try OpenSSLKey(pem: pem) }
    }

    @Test func encryptedKeysAreRefusedWithoutPrompting() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("openssl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("encrypted-test-fixture.pem").path
        try Data(try #require(Self.ec.privateKeyPEM()).utf8).write(to: URL(fileURLWithPath: path + ".plain"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = [
            "pkcs8", "-topk8", "-in", path + ".plain", "-out", path, "-passout", "pass:fixture", "-v2", "aes-128-cbc",
        ]
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0)
        let pem = try String(contentsOfFile: path, encoding: .utf8)
        #expect(pem.contains("ENCRYPTED PRIVATE KEY"))
        #expect(throws: OpenSSLKeyError.unreadablePEM(isPublic: false)) { try OpenSSLKey(pem: pem) }
    }

    @Test func wrappersKeepTheirErrorsAndMessages() throws {
        let garbage = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"
        #expect(throws: KeyError(.invalidKey, "not a readable PEM private key (an unencrypted PKCS#8 key)")) {
            try ES256Key(pem: garbage)
        }
        #expect(throws: KeyError(.invalidKey, "not a readable PEM private key (an unencrypted PKCS#8 key)")) {
            try RS256Key(pem: garbage)
        }
        #expect(throws: KeyError(.wrongKind, "the key is not an EC key; ES256 needs an EC P-256 key")) {
            try ES256Key(pem: Self.rsa.publicKeyPEM())
        }
        #expect(throws: KeyError(.wrongKind, "the key is not an RSA key; RS256 needs an RSA key")) {
            try RS256Key(pem: Self.ec.publicKeyPEM())
        }
        #expect(throws: KeyError(.signingFailed, "cannot sign with a public key")) {
            try Self.ec.publicKey().sign(Self.message)
        }
        #expect(throws: KeyError(.signingFailed, "cannot sign with a public key")) {
            try Self.rsa.publicKey().sign(Self.message)
        }
    }

    @Test func shortRSAKeysAreRefused() throws {
        let short = try #require(tidings_generate_rsa_key(1024))
        let pem = try #require(OpenSSLKey(taking: short, isPrivate: true).privateKeyPEM())
        #expect(throws: KeyError(.wrongKind, "the RSA key has 1024 bits; RS256 needs at least 2048")) {
            try RS256Key(pem: pem)
        }
    }

    @Test func publicHalvesKeepTheirKind() throws {
        let ecPublic = Self.ec.publicKey()
        #expect(!ecPublic.isPrivate)
        #expect(ecPublic.verify(try Self.ec.sign(Self.message), for: Self.message))
        let rsaPublic = Self.rsa.publicKey()
        #expect(!rsaPublic.isPrivate)
        #expect(rsaPublic.bits == 2048)
        #expect(rsaPublic.verify(try Self.rsa.sign(Self.message), for: Self.message))
    }
}
