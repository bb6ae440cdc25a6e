import Testing
import TidingsCrypto

@Suite struct PasswordHashTests {
    /// Cheap parameters keep the suite fast; the standard ones are checked once below.
    static let quick = PasswordHash.Parameters(logN: 10, r: 8, p: 1)

    @Test func theRightPasswordVerifiesAndAWrongOneDoesNot() throws {
        let stored = try PasswordHash.make("correct horse battery", parameters: Self.quick)
        #expect(stored.hasPrefix("scrypt$10$8$1$"))
        #expect(PasswordHash.verify("correct horse battery", against: stored))
        #expect(!PasswordHash.verify("correct horse batterY", against: stored))
        #expect(!PasswordHash.verify("", against: stored))
    }

    @Test func eachHashHasItsOwnSalt() throws {
        let first = try PasswordHash.make("same password here", parameters: Self.quick)
        let second = try PasswordHash.make("same password here", parameters: Self.quick)
        #expect(first != second)
        #expect(PasswordHash.verify("same password here", against: second))
    }

    @Test func theStandardParametersRoundTrip() throws {
        let stored = try PasswordHash.make("a standard password")
        #expect(stored.hasPrefix("scrypt$15$8$1$"))
        #expect(PasswordHash.verify("a standard password", against: stored))
    }

    @Test func shortAndOversizePasswordsAreRefusedStatingTheLimit() {
        #expect(throws: PasswordHashError.self) { try PasswordHash.make("short") }
        do {
            _ = try PasswordHash.make(String(repeating: "x", count: 1025), parameters: Self.quick)
            Issue.record("an oversize password was hashed")
        } catch {
            #expect(error.code == .tooLong)
            #expect(error.message.contains("1024"))
        }
    }

    @Test(arguments: [
        "", "scrypt", "scrypt$10$8$1$salt", "bcrypt$10$8$1$AAAA$AAAA", "scrypt$40$8$1$AAAA$AAAA",
        "scrypt$10$8$1$!!$AAAA", "scrypt$10$8$1$AAAA$", "scrypt$x$8$1$AAAA$AAAA",
    ])
    func malformedStoredValuesNeverVerify(stored: String) {
        #expect(!PasswordHash.verify("any password at all", against: stored))
    }

    @Test func theDecoyVerifiesNoPassword() {
        #expect(!PasswordHash.verify("", against: PasswordHash.decoy))
        #expect(!PasswordHash.verify("any password at all", against: PasswordHash.decoy))
    }
}
