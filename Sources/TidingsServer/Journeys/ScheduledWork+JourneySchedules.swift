extension ScheduledWork.Job {
    /// Enters people into journeys with a schedule trigger (``JourneyScheduler``), looking every thirty seconds.
    static func journeySchedules(_ engine: JourneyEngine) -> Self {
        Self(name: "journey-schedules", interval: .seconds(30)) { try engine.runSchedules() }
    }
}
