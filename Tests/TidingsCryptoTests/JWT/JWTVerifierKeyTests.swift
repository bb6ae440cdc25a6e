import Foundation
import Testing
import TidingsCrypto
import TidingsModel

/// `JWTVerifier.Key`: which PEM keys are accepted, which algorithm each gets, and that only public halves stay.
@Suite("JWT verifier keys")
struct JWTVerifierKeyTests {
    typealias F = JWTFixtures

    @Test func publicPEMsGetTheAlgorithmOfTheirKind() throws {
        let ec = try JWTVerifier.Key(id: "ec", pem: F.ec.publicKeyPEM())
        #expect(ec.id == "ec")
        #expect(ec.algorithm == .es256)
        #expect(ec.publicKeyPEM() == F.ec.publicKeyPEM())
        let rsa = try JWTVerifier.Key(id: "rsa", pem: F.rsa.publicKeyPEM())
        #expect(rsa.algorithm == .rs256)
        #expect(rsa.publicKeyPEM() == F.rsa.publicKeyPEM())
        let verifier = JWTVerifier(keys: [ec, rsa])
        let esToken = try JWTSigner(key: F.ec, keyID: "ec").sign(F.claims())
        #expect(try verifier.verify(esToken, audience: F.audience, now: F.now).keyID == "ec")
        let rsToken = try JWTSigner(key: F.rsa, keyID: "rsa").sign(F.claims())
        #expect(try verifier.verify(rsToken, audience: F.audience, now: F.now).keyID == "rsa")
    }

    @Test func privatePEMsKeepOnlyTheirPublicHalf() throws {
        let ecPEM = try #require(F.ec.privateKeyPEM())
        let rsaPEM = try #require(F.rsa.privateKeyPEM())
        let ec = try JWTVerifier.Key(id: "ec-1", pem: ecPEM)
        let rsa = try JWTVerifier.Key(id: "rsa-1", pem: rsaPEM)
        #expect(ec.algorithm == .es256)
        #expect(rsa.algorithm == .rs256)
        #expect(ec.publicKeyPEM() == F.ec.publicKeyPEM())
        #expect(rsa.publicKeyPEM() == F.rsa.publicKeyPEM())
        let fromKey = JWTVerifier.Key(id: "ec-1", es256: F.ec)
        #expect(fromKey.publicKeyPEM() == F.ec.publicKeyPEM())
        #expect(
            try JWTVerifier(keys: [ec]).verify(F.es256Token(), audience: F.audience, now: F.now).subject == "user-42")
    }

    @Test func shortRSAKeysAreRefusedAtCreation() {
        #expect(throws: KeyError(.wrongKind, "the RSA key has 1024 bits; RS256 needs at least 2048")) {
            try JWTVerifier.Key(id: "short", pem: F.shortRSAPublicKeyPEM)
        }
    }

    @Test(arguments: [F.p384PublicKeyPEM, F.ed25519PublicKeyPEM])
    func otherKindsOfKeyAreRefused(pem: String) throws {
        #expect {
            try JWTVerifier.Key(id: "other", pem: pem)
        } throws: { error in
            (error as? KeyError)?.code == .wrongKind
        }
    }

    @Test(arguments: [
        "", "not a key", "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n",
        "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
    ])
    func unreadablePEMIsInvalidAndNotEchoed(pem: String) throws {
        do {
            _ = try JWTVerifier.Key(id: "bad", pem: pem)
            Issue.record("accepted")
        } catch {
            #expect(error.code == .invalidKey)
            #expect(pem.isEmpty || !error.message.contains(pem))
            #expect(!error.message.contains("AAAA"))
        }
    }
}
