/// Where slots of a rate come from: this process's own schedule (``LocalRateSchedule``), or the schedule every
/// instance sharing the store takes from (``SharedRateSchedule``). A source never fails: one that cannot reach
/// its store hands out a local share instead.
public protocol RateSlotSource: Sendable {
    /// Takes up to `want` consecutive slots, `interval` apart, of the rate `name`, the first starting no more
    /// than `horizon` after `now`; `charge` slots used without a lease are accounted first
    /// (``TidingsStore/RateLease/schedule(next:now:interval:want:charge:horizon:)``).
    func lease(
        _ name: String, interval: Duration, want: Int, charge: Int, horizon: Duration, now: ContinuousClock.Instant
    ) -> SlotLease
}
