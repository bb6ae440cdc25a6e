import Foundation
import Testing
import TidingsCrypto
import TidingsModel
import TidingsStore
import TidingsStoreTesting

/// Operators' second factors, recovery codes, sign-in challenges and the shared sign-in throttle
/// (``SecondFactorStore``, ``SignInThrottleStore``) on every backend.
@Suite struct StoreSecondFactorTests {
    static let now: Int64 = 1_800_000_000_000
    static let secret = Array("TOTPSECRETBYTES12345".utf8)

    static func open(_ place: StoreSecretsAtRestTests.Place, _ key: SecretsKey) throws -> any Store {
        let store = try place.open(StoreSecretsAtRestTests.KeyringSealer(key))
        if try store.operatorAccount(named: "ada") == nil {
            try store.createOperator(OperatorRecord(name: "ada", role: .admin, passwordHash: "x", createdAt: now))
        }
        return store
    }

    static func enrol(_ store: any Store) throws {
        try store.startSecondFactorEnrolment(
            OperatorSecondFactor(
                operatorName: "ada", secret: secret, recoverySalt: Array("salt".utf8), createdAt: now))
    }

    @Test(arguments: StoreBackend.allCases)
    func theSecretIsSealedNeverInPlaintextAndOnlyItsKeyOpensIt(_ backend: StoreBackend) throws {
        let place = try StoreSecretsAtRestTests.Place(backend)
        let key = SecretsKey.generate()
        let store = try Self.open(place, key)
        try Self.enrol(store)
        #expect(try store.secondFactor(operatorName: "ada")?.secret == Self.secret)
        #expect(try store.secretsInventory().sealedByKeyID[key.id] == 1)
        let copy = try place.copy()
        for text in [String(decoding: Self.secret, as: UTF8.self), Base32.encode(Self.secret)] {
            #expect(!copy.contains(Data(text.utf8)), "\(backend): the raw row holds the secret")
            let hex = Data(text.utf8).map { String(format: "%02x", $0) }.joined()
            #expect(!copy.contains(Data(hex.utf8)))
        }
        // Another key cannot open it; a store without a key refuses to keep one.
        let other = try place.open(StoreSecretsAtRestTests.KeyringSealer(SecretsKey.generate()))
        #expect(throws: StoreError.self) { try other.secondFactor(operatorName: "ada") }
        let keyless = try place.open(nil)
        #expect(throws: StoreError.self) { try Self.enrol(keyless) }
        // Rotation moves it to the new key.
        let next = SecretsKey.generate()
        #expect(try store.resealSecrets(with: StoreSecretsAtRestTests.KeyringSealer(next)) == 1)
        #expect(try Self.open(place, next).secondFactor(operatorName: "ada")?.secret == Self.secret)
    }

    @Test(arguments: StoreBackend.allCases)
    func confirmationStepsAndRecoveryCodesAreEachUsedOnce(_ backend: StoreBackend) throws {
        let store = try Self.open(try StoreSecretsAtRestTests.Place(backend), SecretsKey.generate())
        try Self.enrol(store)
        #expect(try store.useSecondFactorStep(operatorName: "ada", step: 100) == false, "not confirmed yet")
        #expect(try store.operatorsWithSecondFactor().isEmpty)
        let digests = [[UInt8](repeating: 1, count: 32), [UInt8](repeating: 2, count: 32)]
        #expect(
            try store.confirmSecondFactor(operatorName: "ada", step: 100, at: Self.now, recoveryCodeDigests: digests))
        #expect(
            try store.confirmSecondFactor(operatorName: "ada", step: 101, at: Self.now, recoveryCodeDigests: [])
                == false)
        #expect(try store.operatorsWithSecondFactor() == ["ada"])
        #expect(throws: StoreError.self) { try Self.enrol(store) }
        #expect(try store.useSecondFactorStep(operatorName: "ada", step: 100) == false, "the confirming code's step")
        #expect(try store.useSecondFactorStep(operatorName: "ada", step: 99) == false)
        #expect(try store.useSecondFactorStep(operatorName: "ada", step: 101))
        #expect(try store.useSecondFactorStep(operatorName: "ada", step: 101) == false)
        #expect(try store.recoveryCodesLeft(operatorName: "ada") == 2)
        #expect(try store.useRecoveryCode(operatorName: "ada", digest: digests[0]))
        #expect(try store.useRecoveryCode(operatorName: "ada", digest: digests[0]) == false)
        try store.replaceRecoveryCodes(operatorName: "ada", digests: [[UInt8](repeating: 3, count: 32)])
        #expect(try store.useRecoveryCode(operatorName: "ada", digest: digests[1]) == false, "replaced")
        #expect(try store.recoveryCodesLeft(operatorName: "ada") == 1)
        #expect(try store.removeSecondFactor(operatorName: "ada"))
        #expect(try store.secondFactor(operatorName: "ada") == nil)
        #expect(try store.recoveryCodesLeft(operatorName: "ada") == 0)
        // Removing the operator removes what they had.
        try Self.enrol(store)
        #expect(try store.removeOperator(name: "ada"))
        #expect(try store.secondFactor(operatorName: "ada") == nil)
    }

    @Test(arguments: StoreBackend.allCases)
    func aChallengeAllowsItsTriesUntilItExpires(_ backend: StoreBackend) throws {
        let store = try Self.open(try StoreSecretsAtRestTests.Place(backend), SecretsKey.generate())
        let digest = SHA256Digest.hash("challenge")
        try store.createSignInChallenge(
            SignInChallenge(idDigest: digest, operatorName: "ada", createdAt: Self.now, expiresAt: Self.now + 300_000))
        for attempt in 1...3 {
            #expect(try store.tryChallenge(idDigest: digest, at: Self.now, maximumTries: 3)?.tries == attempt)
        }
        #expect(try store.tryChallenge(idDigest: digest, at: Self.now, maximumTries: 3) == nil, "out of tries")
        #expect(try store.removeSignInChallenge(idDigest: digest) == false, "gone with its last try")

        try store.createSignInChallenge(
            SignInChallenge(idDigest: digest, operatorName: "ada", createdAt: Self.now, expiresAt: Self.now + 300_000))
        #expect(try store.tryChallenge(idDigest: digest, at: Self.now + 300_000, maximumTries: 3) == nil, "expired")
        #expect(try store.tryChallenge(idDigest: SHA256Digest.hash("other"), at: Self.now, maximumTries: 3) == nil)
        #expect(throws: StoreError.self) {
            try store.createSignInChallenge(
                SignInChallenge(idDigest: digest, operatorName: "nobody", createdAt: Self.now, expiresAt: Self.now + 1))
        }
    }

    /// Two instances on one store count failures in the same buckets, and levels drain with time.
    @Test(arguments: StoreBackend.allCases)
    func sharedBucketsFillAcrossInstancesAndDrain(_ backend: StoreBackend) throws {
        let stores = try backend.makeSharedStores(count: 2)
        let drain = 1.0 / 30
        for index in 0..<5 {
            try stores[index % 2].addSignInFailure(bucket: "account:ada", drainPerSecond: drain, at: Self.now)
        }
        for store in stores {
            #expect(
                abs(try store.signInFailureLevel(bucket: "account:ada", drainPerSecond: drain, at: Self.now) - 5) < 1e-6
            )
        }
        let later = try stores[0].signInFailureLevel(
            bucket: "account:ada", drainPerSecond: drain, at: Self.now + 60_000)
        #expect(abs(later - 3) < 1e-3)
        try stores[1].addSignInFailure(bucket: "account:ada", drainPerSecond: drain, at: Self.now + 60_000)
        #expect(
            abs(
                try stores[0].signInFailureLevel(bucket: "account:ada", drainPerSecond: drain, at: Self.now + 60_000)
                    - 4) < 1e-3)
        #expect(
            try stores[0].signInFailureLevel(bucket: "account:ada", drainPerSecond: drain, at: Self.now + 600_000) == 0)
        #expect(try stores[0].signInFailureLevel(bucket: "address:10.0.0.1", drainPerSecond: drain, at: Self.now) == 0)
        try stores[1].clearSignInFailures(bucket: "account:ada")
        #expect(
            try stores[0].signInFailureLevel(bucket: "account:ada", drainPerSecond: drain, at: Self.now + 60_000) == 0)
        try stores[0].addSignInFailure(bucket: "address:10.0.0.1", drainPerSecond: drain, at: Self.now)
        #expect(try stores[1].removeSignInFailures(updatedBefore: Self.now + 1) == 1)
    }
}
