/// Operators' TOTP second factors, their recovery codes, and the challenges of sign-ins waiting for a code
/// (docs/security.md, "Two-factor sign-in"). Every "use" is one atomic statement, so two instances sharing the
/// store never both accept one code, recovery code or challenge.
public protocol SecondFactorStore: Sendable {
    /// The operator's second factor, its secret opened; nil when they have none (or enrolment was reset).
    /// - Throws: ``StoreError/Code/secretsKeyMissing`` or ``StoreError/Code/secretUnreadable``.
    func secondFactor(operatorName: String) throws -> OperatorSecondFactor?
    /// Starts (or restarts) enrolment: keeps `record` unconfirmed, its secret sealed.
    /// - Throws: ``StoreError/Code/conflict`` when the operator has a confirmed second factor,
    ///   ``StoreError/Code/notFound`` for an unknown operator, ``StoreError/Code/secretsKeyMissing`` when the
    ///   store has no sealer (a TOTP secret is never stored in plaintext).
    func startSecondFactorEnrolment(_ record: OperatorSecondFactor) throws
    /// Confirms enrolment with the code of `step`, at `at`, and sets the recovery codes (by digest).
    /// - Returns: false when there is no enrolment under way.
    @discardableResult
    func confirmSecondFactor(operatorName: String, step: Int64, at: Int64, recoveryCodeDigests: [[UInt8]]) throws
        -> Bool
    /// Accepts the code of `step` once: false when a code of that step or a later one was accepted already.
    func useSecondFactorStep(operatorName: String, step: Int64) throws -> Bool
    /// Uses up one recovery code: false when the operator has none with this digest (left).
    func useRecoveryCode(operatorName: String, digest: [UInt8]) throws -> Bool
    /// Replaces every recovery code of a confirmed second factor.
    func replaceRecoveryCodes(operatorName: String, digests: [[UInt8]]) throws
    /// How many recovery codes the operator has left.
    func recoveryCodesLeft(operatorName: String) throws -> Int
    /// Removes the operator's second factor and recovery codes; false when there was none.
    @discardableResult
    func removeSecondFactor(operatorName: String) throws -> Bool
    /// The operators whose second factor is confirmed.
    func operatorsWithSecondFactor() throws -> Set<String>

    /// Keeps a challenge. - Throws: ``StoreError/Code/notFound`` when its operator does not exist.
    func createSignInChallenge(_ challenge: SignInChallenge) throws
    /// Counts one try of the challenge and returns it; nil when it is unknown, expired at `at`, or has had
    /// `maximumTries` already (it is removed then).
    func tryChallenge(idDigest: [UInt8], at: Int64, maximumTries: Int) throws -> SignInChallenge?
    /// Ends a challenge: false when it was gone already (so only one request completes it).
    @discardableResult
    func removeSignInChallenge(idDigest: [UInt8]) throws -> Bool
    /// Drops challenges that expired before `before`; how many.
    @discardableResult
    func removeExpiredSignInChallenges(before: Int64) throws -> Int
}
