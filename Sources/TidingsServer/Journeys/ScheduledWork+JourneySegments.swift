extension ScheduledWork.Job {
    /// Finds the joins of segment-triggered journeys that no signal announced (``JourneySegmentTriggers``), once a
    /// minute: a time-based join is heard within that.
    static func journeySegments(_ engine: JourneyEngine) -> Self {
        Self(name: "journey-segments", interval: .seconds(60)) { try engine.runSegmentSweep() }
    }
}
