/// What split tests in journey send steps need of the store: the test, started once per (journey, version,
/// step) however many instances reach it at once; the messages its test share was sent (written with the run
/// that sent them, ``JourneyRunChange/testSends``); and the decision,
/// recorded once by a conditional update, so two instances deciding together store one.
public protocol JourneyStepTestStore: Sendable {
    /// Stores `test` unless its (journey, version, step) already has one.
    /// - Returns: the stored test: `test`, or the one that started first.
    func startJourneyStepTest(_ test: JourneyStepTestRecord) throws -> JourneyStepTestRecord
    /// The tests of journey `journeyID`, by version then step.
    func journeyStepTests(appID: String, journeyID: String) throws -> [JourneyStepTestRecord]
    /// Up to `limit` undecided tests whose ``JourneyStepTestRecord/decideAt`` has come, the oldest due first.
    func dueJourneyStepTests(now: Int64, limit: Int) throws -> [JourneyStepTestRecord]
    /// Records the decision of a test if it is still undecided.
    /// - Returns: false, changing nothing, when another instance decided it first (or there is no such test).
    func recordJourneyStepDecision(
        appID: String, journeyID: String, version: Int, stepID: String, decidedAt: Int64, winner: String,
        decision: String
    ) throws -> Bool
    /// The messages the test's share was sent, by id.
    func journeyStepTestSends(appID: String, journeyID: String, version: Int, stepID: String) throws -> [String]
}
