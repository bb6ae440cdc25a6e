import Testing
import TidingsCrypto

@Suite struct SecureRandomTests {
    @Test(arguments: [0, 1, 16, 32, 300, 4096])
    func givesTheCountAskedFor(_ count: Int) {
        #expect(SecureRandom.bytes(count).count == count)
    }

    @Test func successiveSecretsDifferAndUseEveryByteValue() {
        let secrets = (0..<64).map { _ in SecureRandom.bytes(32) }
        #expect(Set(secrets).count == secrets.count)
        // 2,048 uniform bytes leave out 0.09 of the 256 values on average; more than 15 is all but impossible.
        #expect(Set(secrets.joined()).count > 240)
    }
}
