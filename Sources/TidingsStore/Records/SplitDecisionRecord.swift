/// A split test that picks its winner: testing until its decision is due, then decided (with the numbers it
/// was decided on and the follow-up message that sends the winner to the rest of the audience) or cancelled
/// with its message.
public struct SplitDecisionRecord: Sendable, Hashable {
    public enum State: String, Sendable, Hashable, CaseIterable {
        /// The test's variants are out (or being resolved); nothing is decided yet.
        case testing
        /// The winner is picked and its follow-up message stored.
        case decided
        /// The test's message was cancelled before the decision: nothing more is sent.
        case cancelled
    }

    /// The test's message.
    public var messageID: String
    public var appID: String
    public var state: State
    /// How long after the test's sends the decision is made, in milliseconds.
    public var afterMilliseconds: Int64
    /// The decision's earliest time: the test's last due time (a local time's last zone) plus the wait.
    public var notBefore: Int64
    /// When the decision is due: set when the test's audience is resolved, to the later of that instant plus
    /// the wait and ``notBefore``; nil while resolving.
    public var decideAt: Int64?
    public var decidedAt: Int64?
    public var followUpMessageID: String?
    /// What was decided and on which numbers, as JSON the server reads.
    public var decision: String?

    public init(
        messageID: String, appID: String, state: State = .testing, afterMilliseconds: Int64, notBefore: Int64,
        decideAt: Int64? = nil, decidedAt: Int64? = nil, followUpMessageID: String? = nil, decision: String? = nil
    ) {
        self.messageID = messageID
        self.appID = appID
        self.state = state
        self.afterMilliseconds = afterMilliseconds
        self.notBefore = notBefore
        self.decideAt = decideAt
        self.decidedAt = decidedAt
        self.followUpMessageID = followUpMessageID
        self.decision = decision
    }
}
