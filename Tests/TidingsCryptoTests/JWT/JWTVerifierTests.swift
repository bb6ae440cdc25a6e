import Foundation
import Testing
import TidingsModel

@testable import TidingsCrypto

/// Signatures, algorithms and keys: which tokens `JWTVerifier` trusts, and that nothing else gets through.
@Suite("JWT verifier")
struct JWTVerifierTests {
    typealias F = JWTFixtures

    static func expect(
        _ token: String, fails code: JWTError.Code, verifier: JWTVerifier = F.verifier,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(sourceLocation: sourceLocation) {
            _ = try verifier.verify(token, audience: F.audience, now: F.now)
        } throws: { error in
            (error as? JWTError)?.code == code
        }
    }

    @Test func validES256TokenVerifiesAndReturnsItsClaims() throws {
        let token = try JWTSigner(key: F.ec, keyID: "ec-1").sign(
            subject: "user-42", audience: F.audience, issuedAt: F.now.addingTimeInterval(-10.7),
            lifetime: .seconds(600), extraClaims: ["email": "ada@example.com", "sub": "ignored"])
        let claims = try F.verifier.verify(token, audience: F.audience, now: F.now)
        #expect(claims.subject == "user-42")
        #expect(claims.audiences == [F.audience])
        #expect(claims.issuedAt == Date(timeIntervalSince1970: Double(F.nowSeconds - 11)))
        #expect(claims.expiresAt == Date(timeIntervalSince1970: Double(F.nowSeconds - 11 + 600)))
        #expect(claims.notBefore == nil)
        #expect(claims.keyID == "ec-1")
        #expect(claims.algorithm == .es256)
        #expect(claims["email"] == "ada@example.com")
        #expect(claims.all.keys.sorted() == ["aud", "email", "exp", "iat", "sub"])
        #expect(F.decodedSegment(2, of: token).count == 64)
    }

    @Test func validRS256TokenVerifiesAndReturnsItsClaims() throws {
        let token = try JWTSigner(key: F.rsa, keyID: "rsa-1").sign(F.claims(subject: "user-7"))
        let claims = try F.verifier.verify(token, audience: F.audience, now: F.now)
        #expect(claims.subject == "user-7")
        #expect(claims.keyID == "rsa-1")
        #expect(claims.algorithm == .rs256)
        #expect(claims.all == F.claims(subject: "user-7"))
        #expect(F.decodedSegment(2, of: token).count == 256)
    }

    @Test func signerWritesTheHeaderTheVerifierExpects() throws {
        let token = try JWTSigner(key: F.rsa, keyID: "rsa-1").sign(F.claims())
        let header = try JSONValue.parse(F.decodedSegment(0, of: token))
        #expect(header == ["alg": "RS256", "kid": "rsa-1", "typ": "JWT"])
        let noKid = try JWTSigner(key: F.ec).sign(F.claims())
        #expect(try JSONValue.parse(F.decodedSegment(0, of: noKid)) == ["alg": "ES256", "typ": "JWT"])
        #expect(throws: KeyError(.signingFailed, "cannot sign with a public key")) {
            try JWTSigner(key: F.ec.publicKey()).sign(F.claims())
        }
    }

    // MARK: Algorithms

    @Test(arguments: ["none", "None", "NONE", "nOnE"], ["", "c2lnbmF0dXJl"])
    func unsignedTokensAreRefused(alg: String, signature: String) throws {
        let token =
            try F.segment(["alg": .string(alg), "typ": "JWT"]) + "." + F.segment(.object(F.claims())) + "."
            + signature
        Self.expect(token, fails: .unsupportedAlgorithm)
        // Even when the key id names a real key.
        let withKid =
            try F.segment(["alg": .string(alg), "kid": "ec-1"]) + "." + F.segment(.object(F.claims()))
            + "." + signature
        Self.expect(withKid, fails: .unsupportedAlgorithm)
    }

    @Test func hmacHelperMatchesRFC4231() {
        // RFC 4231 test case 2.
        let mac = F.hmacSHA256(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        #expect(SHA256Digest.hex(mac) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    /// The classic confusion attack: HMAC the token with the server's public key PEM as the secret.
    @Test(arguments: ["HS256", "HS384", "HS512"], ["ec-1", "rsa-1", nil] as [String?])
    func hmacTokensKeyedWithThePublicKeyAreRefused(alg: String, kid: String?) throws {
        let pem = kid == "ec-1" ? F.ec.publicKeyPEM() : F.rsa.publicKeyPEM()
        var header: [String: JSONValue] = ["alg": .string(alg), "typ": "JWT"]
        header["kid"] = kid.map(JSONValue.string)
        let token = try F.token(header: .object(header)) { F.hmacSHA256(key: Array(pem.utf8), message: $0) }
        Self.expect(token, fails: .unsupportedAlgorithm)
    }

    @Test(arguments: ["ES384", "RS512", "PS256", "EdDSA", "es256", "", "ES256 "])
    func otherAlgorithmsAreRefused(alg: String) throws {
        let token = try F.token(header: ["alg": .string(alg), "kid": "ec-1"]) { try F.ec.sign($0) }
        Self.expect(token, fails: .unsupportedAlgorithm)
    }

    @Test(arguments: [nil, .integer(256), .array(["ES256"]), .null] as [JSONValue?])
    func missingOrNonStringAlgIsRefused(alg: JSONValue?) throws {
        var header: [String: JSONValue] = ["typ": "JWT", "kid": "ec-1"]
        header["alg"] = alg
        let token = try F.token(header: .object(header)) { try F.ec.sign($0) }
        Self.expect(token, fails: .unsupportedAlgorithm)
    }

    @Test func aKeyVerifiesOnlyItsOwnAlgorithm() throws {
        // ES256 header naming the RSA key, validly signed by the EC key.
        let esWithRSAKid = try F.token(header: ["alg": "ES256", "kid": "rsa-1"]) { try F.ec.sign($0) }
        Self.expect(esWithRSAKid, fails: .unknownKey)
        // RS256 header naming the EC key, validly signed by the RSA key.
        let rsWithECKid = try F.token(header: ["alg": "RS256", "kid": "ec-1"]) { try F.rsa.sign($0) }
        Self.expect(rsWithECKid, fails: .unknownKey)
        // An RSA signature under an ES256 header is never tried against the RSA key.
        let rsaSignedES = try F.token(header: ["alg": "ES256"]) { try F.rsa.sign($0) }
        Self.expect(rsaSignedES, fails: .badSignature)
        // No key of the token's algorithm at all.
        let ecOnly = JWTVerifier(keys: [.init(id: "ec-1", es256: F.ec)])
        let rsToken = try JWTSigner(key: F.rsa).sign(F.claims())
        Self.expect(rsToken, fails: .unknownKey, verifier: ecOnly)
    }

    @Test func es256SignaturesMustBeTheRawJWSForm() throws {
        let token = try JWTSigner(key: F.ec, keyID: "ec-1").sign(F.claims())
        let raw = F.decodedSegment(2, of: token)
        let der = try #require(ECDSASignature.der(fromRaw: raw))
        #expect(try F.verifier.verify(token, audience: F.audience, now: F.now).keyID == "ec-1")
        #expect(der.first == 0x30)
        Self.expect(F.replacing(segment: 2, of: token, with: Base64URL.encode(der)), fails: .badSignature)
        Self.expect(F.replacing(segment: 2, of: token, with: Base64URL.encode(raw.dropLast())), fails: .badSignature)
        Self.expect(F.replacing(segment: 2, of: token, with: Base64URL.encode(raw + [0])), fails: .badSignature)
        Self.expect(F.replacing(segment: 2, of: token, with: ""), fails: .badSignature)
        Self.expect(
            F.replacing(segment: 2, of: token, with: Base64URL.encode([UInt8](repeating: 0, count: 64))),
            fails: .badSignature)
    }

    // MARK: Tampering

    enum Part: String, CaseIterable { case header, payload, signature }

    @Test(arguments: Part.allCases, [JWTAlgorithm.es256, .rs256])
    func tamperedTokensAreRefused(part: Part, algorithm: JWTAlgorithm) throws {
        let signer = algorithm == .es256 ? JWTSigner(key: F.ec, keyID: "ec-1") : JWTSigner(key: F.rsa, keyID: "rsa-1")
        let token = try signer.sign(F.claims())
        _ = try F.verifier.verify(token, audience: F.audience, now: F.now)
        let tampered: String
        switch part {
        case .header:
            let header: JSONValue = [
                "alg": .string(algorithm.rawValue), "kid": .string(signer.keyID ?? ""), "typ": "JWT", "x5u": "",
            ]
            tampered = F.replacing(segment: 0, of: token, with: try F.segment(header))
        case .payload:
            var claims = F.claims()
            claims["sub"] = "admin"
            tampered = F.replacing(segment: 1, of: token, with: try F.segment(.object(claims)))
        case .signature:
            var signature = F.decodedSegment(2, of: token)
            signature[signature.count / 2] ^= 0x01
            tampered = F.replacing(segment: 2, of: token, with: Base64URL.encode(signature))
        }
        Self.expect(tampered, fails: .badSignature)
    }

    @Test func anEmbeddedKeyIsNeverTrusted() throws {
        // An attacker signs with their own key and offers it in the header.
        let header: JSONValue = [
            "alg": "ES256", "typ": "JWT", "jwk": ["kty": "EC", "crv": "P-256", "x": "AAAA", "y": "AAAA"],
            "jku": "https://attacker.example/jwks.json", "x5c": ["AAAA"],
        ]
        let token = try F.token(header: header) { try F.otherEC.sign($0) }
        Self.expect(token, fails: .badSignature)
    }

    @Test func headerMembersAreChecked() throws {
        let typJOSE = try F.token(header: ["alg": "ES256", "kid": "ec-1", "typ": "JOSE"]) { try F.ec.sign($0) }
        Self.expect(typJOSE, fails: .malformed)
        let crit = try F.token(header: ["alg": "ES256", "kid": "ec-1", "crit": ["exp"]]) { try F.ec.sign($0) }
        Self.expect(crit, fails: .malformed)
        let numericKid = try F.token(header: ["alg": "ES256", "kid": 1]) { try F.ec.sign($0) }
        Self.expect(numericKid, fails: .malformed)
        let noTyp = try F.token(header: ["alg": "ES256", "kid": "ec-1"]) { try F.ec.sign($0) }
        #expect(try F.verifier.verify(noTyp, audience: F.audience, now: F.now).subject == "user-42")
    }

    // MARK: Keys

    @Test func unknownKidIsRefused() throws {
        let token = try JWTSigner(key: F.ec, keyID: "ec-2").sign(F.claims())
        Self.expect(token, fails: .unknownKey)
    }

    @Test func withoutKidEveryKeyOfTheAlgorithmIsTriedSoKeysCanRotate() throws {
        let old = ES256Key.generate()
        let new = ES256Key.generate()
        let verifier = JWTVerifier(keys: [
            .init(id: "2026-06", es256: old), .init(id: "rsa-1", rs256: F.rsa), .init(id: "2026-12", es256: new),
        ])
        for (key, id) in [(old, "2026-06"), (new, "2026-12")] {
            let withoutKid = try JWTSigner(key: key).sign(F.claims())
            #expect(try verifier.verify(withoutKid, audience: F.audience, now: F.now).keyID == id)
            let withKid = try JWTSigner(key: key, keyID: id).sign(F.claims())
            #expect(try verifier.verify(withKid, audience: F.audience, now: F.now).keyID == id)
        }
        // A kid binds the token to that key: the other key's signature does not pass under it.
        let mislabelled = try JWTSigner(key: new, keyID: "2026-06").sign(F.claims())
        Self.expect(mislabelled, fails: .badSignature, verifier: verifier)
        // A retired key stops verifying.
        let retired = JWTVerifier(keys: [.init(id: "2026-12", es256: new)])
        Self.expect(try JWTSigner(key: old).sign(F.claims()), fails: .badSignature, verifier: retired)
    }

    @Test(arguments: [JWTAlgorithm.es256, .rs256])
    func anotherAppsKeyNeverVerifies(algorithm: JWTAlgorithm) throws {
        let appA: JWTVerifier.Key =
            algorithm == .es256 ? .init(id: "main", es256: F.ec) : .init(id: "main", rs256: F.rsa)
        let appB: JWTVerifier.Key =
            algorithm == .es256 ? .init(id: "main", es256: F.otherEC) : .init(id: "main", rs256: F.otherRSA)
        let signerA = algorithm == .es256 ? JWTSigner(key: F.ec, keyID: "main") : JWTSigner(key: F.rsa, keyID: "main")
        let signerB =
            algorithm == .es256 ? JWTSigner(key: F.otherEC, keyID: "main") : JWTSigner(key: F.otherRSA, keyID: "main")
        let verifierA = JWTVerifier(keys: [appA])
        let verifierB = JWTVerifier(keys: [appB])
        let tokenA = try signerA.sign(F.claims())
        let tokenB = try signerB.sign(F.claims())
        #expect(try verifierA.verify(tokenA, audience: F.audience, now: F.now).subject == "user-42")
        #expect(try verifierB.verify(tokenB, audience: F.audience, now: F.now).subject == "user-42")
        Self.expect(tokenA, fails: .badSignature, verifier: verifierB)
        Self.expect(tokenB, fails: .badSignature, verifier: verifierA)
        let unlabelledA = algorithm == .es256 ? JWTSigner(key: F.ec) : JWTSigner(key: F.rsa)
        Self.expect(try unlabelledA.sign(F.claims()), fails: .badSignature, verifier: verifierB)
    }

    @Test func noKeysVerifyNothing() throws {
        Self.expect(try F.es256Token(), fails: .unknownKey, verifier: JWTVerifier(keys: []))
        Self.expect(try JWTSigner(key: F.ec).sign(F.claims()), fails: .unknownKey, verifier: JWTVerifier(keys: []))
    }
}
