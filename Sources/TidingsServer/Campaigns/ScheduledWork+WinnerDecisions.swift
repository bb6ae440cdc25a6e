import TidingsCampaigns
import TidingsModel

extension ScheduledWork.Job {
    /// Decides the split tests that are due (``WinnerSelector``), looking every ten seconds.
    public static func winnerDecisions(_ selector: WinnerSelector) -> Self {
        Self(name: "winner-decisions", interval: .seconds(10)) { try selector.runDue() }
    }
}
