/// A count of one journey's step: `entered`, or `exited:REASON` for the runs that ended there. Step `""` holds
/// the journey's entry counts (`entered`, `already_in`, `entry_rule`).
public struct JourneyCount: Sendable, Hashable {
    public var stepID: String
    public var metric: String
    public var count: Int

    public init(stepID: String, metric: String, count: Int) {
        self.stepID = stepID
        self.metric = metric
        self.count = count
    }
}
