import TidingsModel

/// One target of one message: the unit fan-out claims, sends and records (at most one per installation).
public struct MessageDelivery: Sendable, Hashable {
    /// Where a delivery stands.
    public enum State: String, Sendable, Hashable, CaseIterable {
        /// Waiting for a worker (possibly not before ``MessageDelivery/notBefore``).
        case pending
        /// A worker holds it until its lease expires.
        case claimed
        case sent
        case failed
        /// Never sent: decided at send time (consent, night, expiry, token, user); the reason says which.
        case skipped
        /// Never sent: its message was cancelled before the push was handed to the provider. Final, like
        /// `sent`, `failed` and `skipped`; a push already handed over when the cancel came is recorded as
        /// its answer says (`sent` or `failed`) instead.
        case cancelled
    }

    public var messageID: String
    public var appID: String
    public var installationID: String
    /// The token the push goes to; empty for a skipped target without one.
    public var token: String
    public var tokenType: TokenType
    /// `sandbox` or `production`.
    public var environment: String
    /// For a message sent to users: the user this installation was reached as. At send time the installation
    /// must still belong to that user.
    public var targetUserID: String?
    public var state: State
    /// Why it failed or was skipped (`no_consent`, `Unregistered`...).
    public var reason: String?
    public var attempts: Int
    /// Unix milliseconds before which it is not claimed: its scheduled time, a retry's wait or a night
    /// deferral.
    public var notBefore: Int64
    /// The variant it was assigned (`control` gets nothing); nil when the message has no variants.
    public var variant: String?
    /// The user its variant was assigned by (every device of the user gets the same arm, and a conversion on
    /// any of them counts); nil when it was assigned by installation or the message has no variants.
    public var splitUserID: String?
    /// The content language it was given (`default`, `ja`, `en-GB`); nil when the content is not localized.
    public var language: String?
    /// Unix milliseconds when it became due as resolved (a `local_time` message: the installation's own wall-clock
    /// time), kept when ``notBefore`` moves for a retry or a night deferral; nil when the message has one send time.
    public var dueAt: Int64?
    /// Unix milliseconds after which it is not sent: its own due time plus the message's time to live (a
    /// `local_time` message); nil when the message's expiry applies to every delivery alike.
    public var expiresAt: Int64?
    /// The fence of the claim this delivery was handed out under (``SendControlStore/claimDeliveries(worker:claim:now:leaseUntil:)``):
    /// every claim and every release raises it, so only the current claim's holder sees its epoch match.
    /// 0 for a delivery that was never claimed.
    public var claimEpoch: Int64

    public init(
        messageID: String, appID: String, installationID: String, token: String, tokenType: TokenType = .apns,
        environment: String = "production", state: State = .pending, reason: String? = nil, attempts: Int = 0,
        notBefore: Int64 = 0, targetUserID: String? = nil, variant: String? = nil, language: String? = nil,
        dueAt: Int64? = nil, expiresAt: Int64? = nil, claimEpoch: Int64 = 0
    ) {
        self.dueAt = dueAt
        self.expiresAt = expiresAt
        self.claimEpoch = claimEpoch
        self.variant = variant
        self.language = language
        self.targetUserID = targetUserID
        self.messageID = messageID
        self.appID = appID
        self.installationID = installationID
        self.token = token
        self.tokenType = tokenType
        self.environment = environment
        self.state = state
        self.reason = reason
        self.attempts = attempts
        self.notBefore = notBefore
    }
}
