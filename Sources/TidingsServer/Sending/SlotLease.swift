/// Slots of a rate taken by one lease (``RateSlotSource``), on this process's monotonic clock.
public struct SlotLease: Sendable, Equatable {
    /// How many consecutive slots; 0 when the rate's schedule is already leased a horizon ahead.
    public var granted: Int
    /// When the first slot starts; when none was granted, when asking again can get one.
    public var first: ContinuousClock.Instant
    /// The time between slots.
    public var interval: Duration

    public init(granted: Int, first: ContinuousClock.Instant, interval: Duration) {
        self.granted = granted
        self.first = first
        self.interval = interval
    }
}
