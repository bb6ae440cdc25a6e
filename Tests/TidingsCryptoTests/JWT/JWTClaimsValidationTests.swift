import Foundation
import Testing
import TidingsCrypto
import TidingsModel

/// The claim checks that follow a good signature: subject, audience, and the token's time window.
@Suite("JWT claims")
struct JWTClaimsValidationTests {
    typealias F = JWTFixtures

    /// `claims` as changed by `change`, signed with the trusted EC key.
    static func token(_ change: (inout [String: JSONValue]) -> Void) throws -> String {
        var claims = F.claims()
        change(&claims)
        return try F.es256Token(claims)
    }

    static func verify(
        _ token: String, audience: String = F.audience, now: Date = F.now,
        maximumLifetime: Duration = .seconds(24 * 3600), clockSkew: Duration = .seconds(60)
    ) throws(JWTError) -> JWTClaims {
        try F.verifier.verify(
            token, audience: audience, now: now, maximumLifetime: maximumLifetime, clockSkew: clockSkew)
    }

    static func code(of token: String, clockSkew: Duration = .seconds(60), maximumLifetime: Duration = .seconds(86400))
        -> JWTError.Code?
    {
        do {
            _ = try verify(token, maximumLifetime: maximumLifetime, clockSkew: clockSkew)
            return nil
        } catch {
            return error.code
        }
    }

    // MARK: Time

    @Test(
        arguments: [
            (-3600, .expired),
            (-61, .expired),
            (-60, .expired),  // exp + skew == now: already expired
            (-59, nil),
            (-1, nil),
            (3600, nil),
        ] as [(Int64, JWTError.Code?)])
    func expiryAllowsTheClockSkewAndNoMore(expiresIn: Int64, expected: JWTError.Code?) throws {
        let token = try Self.token {
            $0["exp"] = .integer(F.nowSeconds + expiresIn)
            $0["iat"] = .integer(F.nowSeconds + min(expiresIn, 0) - 600)
        }
        #expect(Self.code(of: token) == expected)
    }

    @Test func expiredIsItsOwnCodeWithAMessageThatSaysSo() throws {
        let token = try Self.token { $0["exp"] = .integer(F.nowSeconds - 120) }
        #expect(throws: JWTError(.expired, "the token expired: exp is in the past (beyond 60 s of skew)")) {
            try Self.verify(token)
        }
        #expect(Self.code(of: token, clockSkew: .seconds(121)) == nil)
        let justExpired = try Self.token { $0["exp"] = .integer(F.nowSeconds - 1) }
        #expect(Self.code(of: justExpired, clockSkew: .zero) == .expired)
    }

    @Test(arguments: [(61, .notYetValid), (3600, .notYetValid), (60, nil), (59, nil)] as [(Int64, JWTError.Code?)])
    func issuedInTheFutureIsRefusedBeyondTheSkew(issuedIn: Int64, expected: JWTError.Code?) throws {
        let token = try Self.token {
            $0["iat"] = .integer(F.nowSeconds + issuedIn)
            $0["exp"] = .integer(F.nowSeconds + issuedIn + 600)
        }
        #expect(Self.code(of: token) == expected)
    }

    @Test func notBeforeIsHonouredWhenPresent() throws {
        let later = try Self.token { $0["nbf"] = .integer(F.nowSeconds + 120) }
        #expect(Self.code(of: later) == .notYetValid)
        let earlier = try Self.token { $0["nbf"] = .integer(F.nowSeconds - 5) }
        #expect(try Self.verify(earlier).notBefore == Date(timeIntervalSince1970: Double(F.nowSeconds - 5)))
        let text = try Self.token { $0["nbf"] = "soon" }
        #expect(Self.code(of: text) == .malformed)
    }

    static let day: Int64 = 86_400

    @Test(
        arguments: [
            (day, nil), (day + 1, .lifetimeTooLong), (30 * day, .lifetimeTooLong),
        ] as [(Int64, JWTError.Code?)])
    func lifetimeIsCappedAtADay(lifetime: Int64, expected: JWTError.Code?) throws {
        let token = try Self.token {
            $0["iat"] = .integer(F.nowSeconds - 10)
            $0["exp"] = .integer(F.nowSeconds - 10 + lifetime)
        }
        #expect(Self.code(of: token) == expected)
    }

    @Test func theMaximumLifetimeIsAParameter() throws {
        let hour = try F.es256Token()  // iat now - 10, exp now + 3600
        #expect(Self.code(of: hour, maximumLifetime: .seconds(3610)) == nil)
        #expect(Self.code(of: hour, maximumLifetime: .seconds(3609)) == .lifetimeTooLong)
        #expect(Self.code(of: hour, maximumLifetime: .seconds(600)) == .lifetimeTooLong)
    }

    @Test func numbersMayBeFractional() throws {
        let token = try Self.token {
            $0["iat"] = .double(Double(F.nowSeconds) - 0.5)
            $0["exp"] = .double(Double(F.nowSeconds) + 99.25)
        }
        let claims = try Self.verify(token)
        #expect(claims.issuedAt == Date(timeIntervalSince1970: Double(F.nowSeconds) - 0.5))
        #expect(claims.expiresAt == Date(timeIntervalSince1970: Double(F.nowSeconds) + 99.25))
        let expired = try Self.token { $0["exp"] = .double(Double(F.nowSeconds) - 60.5) }
        #expect(Self.code(of: expired) == .expired)
    }

    // MARK: Audience

    @Test func audienceMustNameThisApp() throws {
        let other = try Self.token { $0["aud"] = "app_other" }
        #expect(Self.code(of: other) == .wrongAudience)
        let right = try F.es256Token()
        #expect(throws: JWTError.self) { try Self.verify(right, audience: "app_other") }
        #expect(throws: JWTError.self) { try Self.verify(right, audience: "APP_7QX2") }
    }

    @Test func audienceMayBeAnArray() throws {
        let token = try Self.token { $0["aud"] = ["app_other", .string(F.audience)] }
        #expect(try Self.verify(token).audiences == ["app_other", F.audience])
        let without = try Self.token { $0["aud"] = ["app_other", "app_third"] }
        #expect(Self.code(of: without) == .wrongAudience)
    }

    @Test(
        arguments: [
            .array([]), .integer(7), .array([.string("app_7Qx2"), .integer(1)]), .null, .bool(true),
        ] as [JSONValue])
    func audienceOfTheWrongShapeIsRefused(aud: JSONValue) throws {
        let token = try Self.token { $0["aud"] = aud }
        #expect(Self.code(of: token) == .wrongAudience)
    }

    // MARK: Required claims

    @Test(
        arguments: [
            ("sub", nil), ("sub", ""), ("sub", 42), ("sub", ["user-42"]),
            ("aud", nil),
            ("exp", nil), ("exp", "1800003600"), ("exp", .null),
            ("iat", nil), ("iat", true), ("iat", "1799999990"),
        ] as [(String, JSONValue?)])
    func requiredClaimsMustBePresentAndWellTyped(name: String, value: JSONValue?) throws {
        let token = try Self.token { $0[name] = value }
        #expect(throws: JWTError.self) { try Self.verify(token) }
        #expect(Self.code(of: token) == .missingClaim)
        do {
            _ = try Self.verify(token)
        } catch {
            #expect(error.message.contains(name))
        }
    }

    @Test func claimsMustBeAnObject() throws {
        let array = try F.token(header: ["alg": "ES256", "kid": "ec-1"], claims: ["sub", "user-42"]) {
            try F.ec.sign($0)
        }
        #expect(Self.code(of: array) == .malformed)
        let signingInput = try F.segment(["alg": "ES256", "kid": "ec-1"]) + "." + F.segment(text: "{\"sub\":")
        let truncated = signingInput + "." + Base64URL.encode(try F.ec.sign(Array(signingInput.utf8)))
        #expect(Self.code(of: truncated) == .malformed)
    }

    @Test func messagesNeverCarryTheTokenOrItsClaims() throws {
        let subject = "user-secret-7f3a"
        let tokens = [
            try Self.token {
                $0["sub"] = .string(subject); $0["exp"] = .integer(F.nowSeconds - 3600)
            },
            try Self.token {
                $0["sub"] = .string(subject); $0["aud"] = "app_other"
            },
            try Self.token {
                $0["sub"] = .string(subject); $0["iat"] = .integer(F.nowSeconds + 3600)
            },
            try Self.token {
                $0["sub"] = .string(subject); $0["exp"] = .integer(F.nowSeconds + 90000)
            },
        ]
        for token in tokens {
            do {
                _ = try Self.verify(token)
                Issue.record("verified")
            } catch {
                #expect(!error.message.contains(subject))
                #expect(!error.message.contains("app_other"))
                #expect(!error.description.contains(token.prefix(20)))
                #expect(!error.message.isEmpty)
            }
        }
    }
}
