/// Where a run stands after a walk or an outside change, with what is written with it in the same
/// transaction: the messages the walk sent and the counts of the steps it passed.
public struct JourneyRunChange: Sendable {
    public var run: JourneyRunRecord
    /// The epoch the change was decided under; the change is dropped when the run's has moved on.
    public var expectedEpoch: Int64
    public var messages: [MessageRecord]
    /// The deliveries of the messages whose audience the walk already decided, by message id. Those messages
    /// are stored resolved (`sending`) with their deliveries in the run's transaction, so they reach the
    /// fan-out without a resolution of their own; the others are stored held by the walker, to resolve next.
    public var deliveries: [String: [MessageDelivery]]
    /// Increments, by step and metric.
    public var counts: [JourneyCount]
    /// The messages among ``messages`` sent to a person in a send step's split-test share, by message id: the
    /// step. Noted with the run so the test's numbers count exactly the sends that were stored.
    public var testSends: [String: String] = [:]

    public init(
        run: JourneyRunRecord, expectedEpoch: Int64, messages: [MessageRecord] = [],
        deliveries: [String: [MessageDelivery]] = [:], counts: [JourneyCount]
    ) {
        self.run = run
        self.expectedEpoch = expectedEpoch
        self.messages = messages
        self.deliveries = deliveries
        self.counts = counts
    }
}
