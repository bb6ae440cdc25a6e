/// A person found a member of the segment a journey is triggered by, with the run that enters them when the
/// store last recorded them as not a member.
public struct JourneySegmentJoin: Sendable, Hashable {
    /// The run to enter; the store gives it its entry key (the subject and how many times they joined).
    public var run: JourneyRunRecord
    /// As ``JourneyStore/enterJourneys(_:)`` takes it.
    public var minimumGap: Int64?
    /// False records the membership without entering (the members a journey starts with).
    public var enters: Bool

    public init(run: JourneyRunRecord, minimumGap: Int64?, enters: Bool = true) {
        self.run = run
        self.minimumGap = minimumGap
        self.enters = enters
    }
}
