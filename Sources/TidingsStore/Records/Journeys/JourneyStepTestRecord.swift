/// The split test of one journey send step that picks its winner, per journey version: started when the step
/// first sent, deciding at ``decideAt``, then decided once with the numbers it was decided on.
public struct JourneyStepTestRecord: Sendable, Hashable {
    public var appID: String
    public var journeyID: String
    public var version: Int
    public var stepID: String
    /// When the first person reached the step.
    public var startedAt: Int64
    /// The end of the test period: people reaching the step from then until the decision wait for it.
    public var testEndsAt: Int64
    /// The end of the test period plus the conversion window: the last test send's conversions are in.
    public var decideAt: Int64
    /// The test's rule, goal and variants as JSON the deciding side reads, fixed when the test starts.
    public var rule: String
    public var decidedAt: Int64?
    /// The variant everyone reaching the step gets after the decision.
    public var winner: String?
    /// What was decided and on which numbers, as JSON the server reads.
    public var decision: String?

    public init(
        appID: String, journeyID: String, version: Int, stepID: String, startedAt: Int64, testEndsAt: Int64,
        decideAt: Int64, rule: String, decidedAt: Int64? = nil, winner: String? = nil, decision: String? = nil
    ) {
        self.appID = appID
        self.journeyID = journeyID
        self.version = version
        self.stepID = stepID
        self.startedAt = startedAt
        self.testEndsAt = testEndsAt
        self.decideAt = decideAt
        self.rule = rule
        self.decidedAt = decidedAt
        self.winner = winner
        self.decision = decision
    }
}
