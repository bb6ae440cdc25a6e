import TidingsModel
import TidingsStore

/// Rates held by this process alone, on its monotonic clock: what a ``SendThrottle`` uses when no store shares
/// them, and what ``SharedRateSchedule`` falls back on when its store is out of reach. The arithmetic is the
/// store's (``RateLease``).
public final class LocalRateSchedule: RateSlotSource {
    private let origin = ContinuousClock.now
    private let schedules = LockedBox<[String: Int64]>([:])

    public init() {}

    public func lease(
        _ name: String, interval: Duration, want: Int, charge: Int, horizon: Duration, now: ContinuousClock.Instant
    ) -> SlotLease {
        // Nanoseconds, which the monotonic clock counts in, so slots fall exactly where the rate puts them.
        let current = Self.nanoseconds(now - origin)
        let lease = schedules.withLock { schedules in
            let (lease, next) = RateLease.schedule(
                next: schedules[name] ?? current, now: current, interval: Self.nanoseconds(interval), want: want,
                charge: charge, horizon: Self.nanoseconds(horizon),
                stepAllowance: RateLease.clockStepAllowance * 1_000)
            schedules[name] = next
            if schedules.count > 10_000 {
                // Finished messages leave their schedules behind: drop what is long past.
                schedules = schedules.filter { $0.value > current - 60_000_000_000 }
            }
            return lease
        }
        return SlotLease(
            granted: lease.granted, first: now + .nanoseconds(lease.startsIn), interval: .nanoseconds(lease.interval))
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    /// Whole microseconds of `duration`, as the store counts; an interval rounds up, so that the rate is never
    /// exceeded by rounding.
    static func microseconds(_ duration: Duration, roundingUp: Bool = false) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let fraction = attoseconds / 1_000_000_000_000
        let rest = attoseconds % 1_000_000_000_000
        return seconds * 1_000_000 + fraction + (roundingUp && rest > 0 ? 1 : 0)
    }
}
