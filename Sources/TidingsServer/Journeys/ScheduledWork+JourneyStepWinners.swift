import TidingsCampaigns
import TidingsModel

extension ScheduledWork.Job {
    /// Decides the journey send steps' split tests that are due (``JourneyStepWinnerSelector``), looking every
    /// ten seconds.
    static func journeyStepWinners(_ selector: JourneyStepWinnerSelector) -> Self {
        Self(name: "journey-step-winners", interval: .seconds(10)) { try selector.runDue() }
    }
}
