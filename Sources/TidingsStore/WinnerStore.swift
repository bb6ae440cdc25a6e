/// What split tests that pick their winner need of the store: the test's pending decision, stored with its
/// message; its due time, set when the test's audience is resolved; and the decision, recorded once with the
/// follow-up message that sends the winner.
///
/// The decision is a conditional update (only a `testing` decision becomes `decided`), in the transaction that
/// stores the follow-up message and the audit entry, so two instances deciding at once store one follow-up, and
/// a restart after the decision finds the follow-up waiting for its resolver.
public protocol WinnerStore: Sendable {
    /// ``CampaignStore/createCampaign(_:resolver:leaseUntil:)``, and with `splitDecision` the test's pending
    /// decision, in one transaction.
    /// - Throws: ``StoreError/Code/conflict`` when the id is taken.
    func createCampaign(
        _ message: MessageRecord, resolver: String?, leaseUntil: Int64?, splitDecision: SplitDecisionRecord?
    ) throws
    /// The decision of the test `messageID`; nil when the message is no such test.
    func splitDecision(messageID: String) throws -> SplitDecisionRecord?
    /// Up to `limit` decisions still `testing` whose ``SplitDecisionRecord/decideAt`` has come, the oldest due
    /// first.
    func dueSplitDecisions(now: Int64, limit: Int) throws -> [SplitDecisionRecord]
    /// Marks the test `messageID` decided (at `decidedAt`, on `decision`), stores `followUp` as a campaign due
    /// for resolution and appends `audit`, in one transaction, if the decision is still `testing`.
    /// - Returns: false, changing nothing, when it is not (decided by another instance, or cancelled).
    func recordSplitDecision(
        messageID: String, decidedAt: Int64, decision: String, followUp: MessageRecord, audit: AuditEntry
    ) throws -> Bool
}
