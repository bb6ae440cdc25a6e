/// The step between a right password and the second factor: a random token the browser holds, bound to one
/// operator, short-lived, single-use and allowed a few tries. The store keeps only the token's digest.
public struct SignInChallenge: Sendable, Hashable {
    /// SHA-256 of the token the sign-in answered.
    public var idDigest: [UInt8]
    public var operatorName: String
    /// Milliseconds since 1970.
    public var createdAt: Int64
    /// Milliseconds since 1970: no code is taken at or after it.
    public var expiresAt: Int64
    /// Codes tried with it so far.
    public var tries: Int

    public init(idDigest: [UInt8], operatorName: String, createdAt: Int64, expiresAt: Int64, tries: Int = 0) {
        self.idDigest = idDigest
        self.operatorName = operatorName
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.tries = tries
    }
}
