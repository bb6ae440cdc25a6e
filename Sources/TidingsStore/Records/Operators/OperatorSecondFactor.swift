/// An operator's TOTP second factor (RFC 6238). The store seals ``secret`` with its ``SecretSealer`` and refuses
/// to keep it without one; recovery codes are kept apart, as digests only.
public struct OperatorSecondFactor: Sendable, Hashable {
    public var operatorName: String
    /// The shared secret authenticator apps hold (20 random bytes), in plaintext only in memory.
    public var secret: [UInt8]
    /// When the operator confirmed enrolment with a code; nil while enrolment is under way (not yet required
    /// at sign-in).
    public var confirmedAt: Int64?
    /// The last time step whose code was accepted: a code of that step or an earlier one is a replay.
    public var lastUsedStep: Int64
    /// Random bytes hashed with each recovery code, so equal codes of two operators have different digests.
    public var recoverySalt: [UInt8]
    /// Milliseconds since 1970: when enrolment started.
    public var createdAt: Int64

    public init(
        operatorName: String, secret: [UInt8], confirmedAt: Int64? = nil, lastUsedStep: Int64 = 0,
        recoverySalt: [UInt8], createdAt: Int64
    ) {
        self.operatorName = operatorName
        self.secret = secret
        self.confirmedAt = confirmedAt
        self.lastUsedStep = lastUsedStep
        self.recoverySalt = recoverySalt
        self.createdAt = createdAt
    }

    /// Whether sign-in asks for a code.
    public var isEnabled: Bool { confirmedAt != nil }
}
