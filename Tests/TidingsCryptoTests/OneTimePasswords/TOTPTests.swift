import Testing
import TidingsCrypto

/// HOTP and TOTP against the RFCs' own vectors, and the window a code is accepted in.
@Suite struct TOTPTests {
    /// The ASCII secret of both RFCs' SHA-1 vectors.
    static let secret = Array("12345678901234567890".utf8)

    /// RFC 4226 Appendix D: HOTP values for counters 0 to 9.
    @Test func hotpMatchesRFC4226AppendixD() {
        let expected = [
            "755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489",
        ]
        for (counter, value) in expected.enumerated() {
            #expect(TOTP.hotp(secret: Self.secret, counter: UInt64(counter), digits: 6) == value, "counter \(counter)")
        }
    }

    /// RFC 6238 Appendix B, the SHA-1 rows (8 digits).
    @Test(arguments: [
        (Int64(59), "94287082"), (1_111_111_109, "07081804"), (1_111_111_111, "14050471"),
        (1_234_567_890, "89005924"), (2_000_000_000, "69279037"), (20_000_000_000, "65353130"),
    ])
    func totpMatchesRFC6238AppendixB(_ time: Int64, _ value: String) {
        let totp = TOTP(secret: Self.secret, digits: 8)
        #expect(totp.code(step: TOTP.step(at: time)) == value)
        #expect(totp.matchingStep(of: value, at: time) == TOTP.step(at: time))
    }

    @Test func aCodeIsAcceptedOneStepEitherSideAndNotTwo() {
        let totp = TOTP(secret: Self.secret)
        let now: Int64 = 1_800_000_015
        let step = TOTP.step(at: now)
        for offset: Int64 in [-1, 0, 1] {
            #expect(totp.matchingStep(of: totp.code(step: step + offset), at: now) == step + offset)
        }
        for offset: Int64 in [-2, 2] {
            let code = totp.code(step: step + offset)
            // A code of a far step can collide with a near one's by chance; these do not.
            #expect([-1, 0, 1].allSatisfy { totp.code(step: step + $0) != code })
            #expect(totp.matchingStep(of: code, at: now) == nil)
        }
    }

    @Test func malformedCodesMatchNothing() {
        let totp = TOTP(secret: Self.secret)
        let now: Int64 = 1_800_000_015
        let code = totp.code(step: TOTP.step(at: now))
        for bad in ["", String(code.dropLast()), code + "0", " " + code, "abcdef"] {
            #expect(totp.matchingStep(of: bad, at: now) == nil, "\(bad)")
        }
    }

    @Test func base32RoundTripsAndMatchesRFC4648() {
        #expect(Base32.encode(Array("foobar".utf8)) == "MZXW6YTBOI")
        #expect(Base32.encode(Array("f".utf8)) == "MY")
        #expect(Base32.decode("mzxw6ytboi") == Array("foobar".utf8))
        #expect(Base32.decode("MZXW6YQ=") == Array("foob".utf8))
        #expect(Base32.decode("MZ1") == nil)
        let secret = SecureRandom.bytes(20)
        #expect(Base32.encode(secret).count == 32)
        #expect(Base32.decode(Base32.encode(secret)) == secret)
    }
}
