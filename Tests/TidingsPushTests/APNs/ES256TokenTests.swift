import Foundation
import Testing
import TidingsModel

@testable import TidingsAPNsEmulator
@testable import TidingsCrypto
@testable import TidingsPush

@Suite("ES256 provider tokens")
struct ES256TokenTests {
    static let keyID = "ABC123DEFG"
    static let teamID = "TEAM123456"
    let key = ES256Key.generate()
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    var verifier: ES256Verifier {
        ES256Verifier(keys: [.init(keyID: Self.keyID, teamID: Self.teamID, publicKey: key.publicKey())])
    }

    func token(refreshAge: Duration = .seconds(50 * 60)) throws -> APNsProviderToken {
        try APNsProviderToken(
            key: key, configuration: .init(keyID: Self.keyID, teamID: Self.teamID, refreshAge: refreshAge))
    }

    func bare(_ header: String) -> String { String(header.dropFirst("bearer ".count)) }

    @Test func signedTokenVerifiesWithItsClaims() throws {
        let header = try token().authorizationHeader(now: start)
        #expect(header.hasPrefix("bearer "))
        let claims = try verifier.verify(bare(header), now: start.addingTimeInterval(10))
        #expect(claims == .init(keyID: Self.keyID, teamID: Self.teamID, issuedAt: start))
        let parts = bare(header).split(separator: ".")
        #expect(parts.count == 3)
        #expect(Base64URL.decode(parts[2])?.count == 64)
        #expect(!header.contains("="))
        let decodedHeader = try JSONValue.parse(Base64URL.decode(parts[0])!)
        #expect(decodedHeader == ["alg": "ES256", "kid": .string(Self.keyID)])
    }

    @Test func keyRoundTripsThroughPEM() throws {
        let pem = try #require(key.privateKeyPEM())
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let reloaded = try ES256Key(pem: pem)
        let signature = try reloaded.sign(Array("message".utf8))
        #expect(key.verify(signature, for: Array("message".utf8)))
        let publicOnly = try ES256Key(pem: key.publicKeyPEM())
        #expect(!publicOnly.isPrivate)
        #expect(publicOnly.privateKeyPEM() == nil)
        #expect(publicOnly.verify(signature, for: Array("message".utf8)))
        #expect(throws: KeyError.self) { try publicOnly.sign([1]) }
    }

    @Test func tamperedPayloadFails() throws {
        let parts = bare(try token().authorizationHeader(now: start)).split(separator: ".").map(String.init)
        let forged = Base64URL.encode(Array(#"{"iss":"OTHERTEAM1","iat":1800000000}"#.utf8))
        #expect(failure([parts[0], forged, parts[2]].joined(separator: ".")) == .badSignature)
    }

    @Test func tamperedSignatureFails() throws {
        let parts = bare(try token().authorizationHeader(now: start)).split(separator: ".").map(String.init)
        var signature = Base64URL.decode(parts[2])!
        signature[10] ^= 0x01
        #expect(failure([parts[0], parts[1], Base64URL.encode(signature)].joined(separator: ".")) == .badSignature)
    }

    @Test func wrongKeyFails() throws {
        let other = ES256Verifier(keys: [
            .init(keyID: Self.keyID, teamID: Self.teamID, publicKey: ES256Key.generate().publicKey())
        ])
        let jwt = bare(try token().authorizationHeader(now: start))
        #expect(throws: ES256Verifier.Failure.self) { _ = try other.verify(jwt, now: start) }
        #expect((try? other.verify(jwt, now: start)) == nil)
    }

    @Test func expiredAndFutureTokensFail() throws {
        let jwt = bare(try token().authorizationHeader(now: start))
        #expect(failure(jwt, now: start.addingTimeInterval(3601)) == .expired)
        #expect(failure(jwt, now: start.addingTimeInterval(3600)) == nil)
        #expect(failure(jwt, now: start.addingTimeInterval(-61)) == .issuedInFuture)
    }

    @Test(arguments: [
        ("not.a.jwt", ES256Verifier.Failure.Code.malformed),
        ("abc", .malformed),
        ("", .malformed),
    ])
    func malformedTokensFail(jwt: String, code: ES256Verifier.Failure.Code) {
        #expect(failure(jwt) == code)
    }

    @Test func wrongAlgorithmKeyAndIssuerFail() throws {
        let parts = bare(try token().authorizationHeader(now: start)).split(separator: ".").map(String.init)
        let hs256 = Base64URL.encode(Array(#"{"alg":"HS256","kid":"ABC123DEFG"}"#.utf8))
        #expect(failure([hs256, parts[1], parts[2]].joined(separator: ".")) == .unsupportedAlgorithm)
        let unknownKid = Base64URL.encode(Array(#"{"alg":"ES256","kid":"ZZZ123DEFG"}"#.utf8))
        #expect(failure([unknownKid, parts[1], parts[2]].joined(separator: ".")) == .unknownKey)
        let otherTeam = try APNsProviderToken(key: key, configuration: .init(keyID: Self.keyID, teamID: "OTHERTEAM1"))
        #expect(failure(bare(try otherTeam.authorizationHeader(now: start))) == .wrongIssuer)
    }

    @Test func tokenIsSharedUntilRefreshAge() throws {
        let token = try token(refreshAge: .seconds(20 * 60))
        let first = try token.authorizationHeader(now: start)
        #expect(try token.authorizationHeader(now: start.addingTimeInterval(19 * 60)) == first)
        let refreshed = try token.authorizationHeader(now: start.addingTimeInterval(20 * 60))
        #expect(refreshed != first)
        #expect(try token.authorizationHeader(now: start.addingTimeInterval(21 * 60)) == refreshed)
    }

    @Test func invalidateReplacesOnlyTheCurrentToken() throws {
        let token = try token()
        let first = try token.authorizationHeader(now: start)
        token.invalidate("bearer stale")
        #expect(try token.authorizationHeader(now: start.addingTimeInterval(1)) == first)
        token.invalidate(first)
        let second = try token.authorizationHeader(now: start.addingTimeInterval(2))
        #expect(second != first)
        // A second caller invalidating the same old header must not discard the new token.
        token.invalidate(first)
        #expect(try token.authorizationHeader(now: start.addingTimeInterval(3)) == second)
    }

    @Test func concurrentInvalidationsMakeOneNewToken() async throws {
        let token = try token()
        let first = try token.authorizationHeader(now: start)
        let now = start.addingTimeInterval(5)
        let headers = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    token.invalidate(first)
                    return try token.authorizationHeader(now: now)
                }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        let after = try token.authorizationHeader(now: now)
        #expect(!headers.contains(first))
        #expect(headers == [after])
    }

    @Test(arguments: [
        ("SHORT", "TEAM123456", APNsCredentialError.Code.invalidKeyID),
        ("ABC123DEFG", "TEAM-12345", .invalidTeamID),
        ("ABC123DEFGH", "TEAM123456", .invalidKeyID),
    ])
    func badIdentifiersAreRefused(keyID: String, teamID: String, code: APNsCredentialError.Code) {
        #expect(
            credentialError { _ = try APNsProviderToken(key: key, configuration: .init(keyID: keyID, teamID: teamID)) }
                == code)
    }

    @Test(arguments: [19 * 60, 56 * 60])
    func refreshAgeOutsideRangeIsRefused(seconds: Int) {
        #expect(
            credentialError {
                _ = try APNsProviderToken(
                    key: key,
                    configuration: .init(keyID: Self.keyID, teamID: Self.teamID, refreshAge: .seconds(seconds)))
            } == .invalidRefreshAge)
    }

    @Test func unreadableAndInvalidKeysAreRefused() throws {
        #expect(
            credentialError {
                _ = try APNsProviderToken(keyFile: "/nonexistent/AuthKey.p8", keyID: Self.keyID, teamID: Self.teamID)
            } == .unreadableFile)
        let garbage = #expect(throws: KeyError.self) {
            try ES256Key(pem: "-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----\n")
        }
        #expect(garbage?.code == .invalidKey)
        #expect(
            credentialError {
                _ = try APNsProviderToken(
                    key: key.publicKey(), configuration: .init(keyID: Self.keyID, teamID: Self.teamID))
            } == .invalidKey)
    }

    @Test func nonP256KeyIsRefused() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("es256-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("p384-test-fixture.pem").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384", "-out", path]
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0)
        #expect(
            credentialError { _ = try APNsProviderToken(keyFile: path, keyID: Self.keyID, teamID: Self.teamID) }
                == .notP256)
    }

    @Test func derAndRawSignaturesConvertBothWays() throws {
        let raw = try key.sign(Array("x".utf8))
        let der = try #require(ECDSASignature.der(fromRaw: raw))
        #expect(ECDSASignature.raw(fromDER: der) == raw)
        #expect(ECDSASignature.der(fromRaw: Array(raw.prefix(63))) == nil)
        #expect(ECDSASignature.raw(fromDER: [0x30, 0x01]) == nil)
    }

    private func failure(_ jwt: String, now: Date? = nil) -> ES256Verifier.Failure.Code? {
        do {
            _ = try verifier.verify(jwt, now: now ?? start)
            return nil
        } catch {
            return error.code
        }
    }

    private func credentialError(_ body: () throws -> Void) -> APNsCredentialError.Code? {
        do {
            try body()
            return nil
        } catch let error as APNsCredentialError {
            return error.code
        } catch {
            return nil
        }
    }
}
