/// Where a run stands after a walk or an outside change, with what is written with it in the same
/// transaction: the messages the walk sent (stored for resolution) and the counts of the steps it passed.
public struct JourneyRunChange: Sendable {
    public var run: JourneyRunRecord
    /// The epoch the change was decided under; the change is dropped when the run's has moved on.
    public var expectedEpoch: Int64
    public var messages: [MessageRecord]
    /// Increments, by step and metric.
    public var counts: [JourneyCount]

    public init(run: JourneyRunRecord, expectedEpoch: Int64, messages: [MessageRecord] = [], counts: [JourneyCount]) {
        self.run = run
        self.expectedEpoch = expectedEpoch
        self.messages = messages
        self.counts = counts
    }
}
