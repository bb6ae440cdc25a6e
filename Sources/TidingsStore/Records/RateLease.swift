/// Slots of a rate shared by every instance, handed out a batch at a time
/// (``ClusterStore/leaseRate(_:interval:want:charge:horizon:now:)``).
///
/// A rate is one schedule: the instant its next free slot starts (`next`, in microseconds on the store's clock)
/// and slots one `interval` apart. A lease takes up to `want` consecutive slots from `next` on, provided the first
/// starts no more than `horizon` ahead of now, so instances reserve at most a horizon's worth ahead and the slots
/// of all of them together never come closer than one interval. A horizon of `(burst - 1) * interval`, with the
/// slots used at once, is the token bucket of that burst (the generic cell rate algorithm).
public struct RateLease: Sendable, Equatable {
    /// Slots granted; 0 when the schedule is a horizon ahead.
    public var granted: Int
    /// Microseconds from the store's now to the first granted slot; when none is granted, until asking again can
    /// grant one.
    public var startsIn: Int64
    /// Microseconds between slots.
    public var interval: Int64

    public init(granted: Int, startsIn: Int64, interval: Int64) {
        self.granted = granted
        self.startsIn = startsIn
        self.interval = interval
    }

    /// How much further than a horizon and one interval `next` may be before it is taken for a clock that
    /// stepped back (or a rate raised from a slow one): then the schedule restarts from now.
    public static let clockStepAllowance: Int64 = 1_000_000

    /// How long a schedule no one leased from is kept (microseconds): a finished message's is forgotten then.
    public static let idleLifetime: Int64 = 3_600_000_000

    /// One lease against a schedule whose next free slot is `next`, at `now` (both microseconds on one clock, as
    /// the store keeps them; a process's own schedule counts nanoseconds, with `stepAllowance` to match).
    /// - Parameters:
    ///   - interval: microseconds between slots (1 / rate), at least 1.
    ///   - want: slots asked for; 0 only charges.
    ///   - charge: slots already used without a lease (transactional pushes past an app's ceiling): the schedule
    ///     moves on by that many intervals first, so what is paced yields to them.
    ///   - horizon: how far ahead of `now` the first granted slot may start.
    /// - Returns: the lease, and the schedule's new `next`. A `now` behind `next` (a clock going backwards)
    ///   grants nothing early: the schedule only moves forwards.
    ///   - stepAllowance: ``clockStepAllowance`` in the units of the other arguments.
    public static func schedule(
        next: Int64, now: Int64, interval: Int64, want: Int, charge: Int = 0, horizon: Int64,
        stepAllowance: Int64 = clockStepAllowance
    ) -> (lease: RateLease, next: Int64) {
        let interval = max(1, interval)
        let horizon = max(0, horizon)
        var next = next
        if next - now > horizon + interval + stepAllowance { next = now }
        let start = max(next, now) + Int64(max(0, charge)) * interval
        let ahead = start - now
        guard want > 0, ahead <= horizon else {
            return (RateLease(granted: 0, startsIn: max(0, ahead - horizon), interval: interval), start)
        }
        let granted = Int(min(Int64(want), (horizon - ahead) / interval + 1))
        return (RateLease(granted: granted, startsIn: ahead, interval: interval), start + Int64(granted) * interval)
    }
}
