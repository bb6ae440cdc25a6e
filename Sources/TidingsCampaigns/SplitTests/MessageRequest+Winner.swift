import Foundation
import TidingsStore

extension MessageRequest {
    /// The pending decision of a split test that picks its winner, stored with the message accepted at `now`;
    /// nil for any other message. Its earliest time is the test's last due time (a local time's last zone)
    /// plus the wait; its due time is set when the test's audience is resolved.
    public func splitDecision(messageID: String, appID: String, now: Date) -> SplitDecisionRecord? {
        guard let winner else { return nil }
        let wait = winner.afterSeconds * 1000
        return SplitDecisionRecord(
            messageID: messageID, appID: appID, afterMilliseconds: wait,
            notBefore: schedule.latestDue(now: now).millisecondsSince1970 + wait)
    }
}
