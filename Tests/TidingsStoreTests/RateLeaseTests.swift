import Testing
import TidingsStore

/// The arithmetic of shared rates (``RateLease/schedule(next:now:interval:want:charge:horizon:)``), in
/// microseconds: batches of consecutive slots, a horizon, time passing, a clock going backwards, a rate changing.
@Suite struct RateLeaseTests {
    /// 100 a second.
    static let interval: Int64 = 10_000
    static let horizon: Int64 = 300_000
    static let t0: Int64 = 1_800_000_000_000_000

    func lease(next: Int64, now: Int64, want: Int, charge: Int = 0, interval: Int64 = interval)
        -> (lease: RateLease, next: Int64)
    {
        RateLease.schedule(next: next, now: now, interval: interval, want: want, charge: charge, horizon: Self.horizon)
    }

    @Test func anIdleScheduleLeasesABatchFromNowAndTheNextBatchFollowsIt() {
        let first = lease(next: Self.t0 - 5_000_000, now: Self.t0, want: 10)
        #expect(first.lease == RateLease(granted: 10, startsIn: 0, interval: Self.interval))
        #expect(first.next == Self.t0 + 100_000, "ten slots taken; idle time is not saved up")
        let second = lease(next: first.next, now: Self.t0 + 1_000, want: 10)
        #expect(second.lease == RateLease(granted: 10, startsIn: 99_000, interval: Self.interval))
        #expect(second.next == Self.t0 + 200_000)
    }

    @Test func noSlotIsLeasedMoreThanTheHorizonAhead() {
        // The next free slot is 250 ms ahead: six more fit within 300 ms (at 250, 260 ... 300).
        let partial = lease(next: Self.t0 + 250_000, now: Self.t0, want: 10)
        #expect(partial.lease == RateLease(granted: 6, startsIn: 250_000, interval: Self.interval))
        #expect(partial.next == Self.t0 + 310_000)
        // Now a horizon and one interval ahead: nothing, and how long until something.
        let refused = lease(next: partial.next, now: Self.t0, want: 10)
        #expect(refused.lease == RateLease(granted: 0, startsIn: 10_000, interval: Self.interval))
        #expect(refused.next == partial.next, "a refusal takes nothing")
        // Time passes: the schedule comes back within the horizon.
        let later = lease(next: partial.next, now: Self.t0 + 10_000, want: 10)
        #expect(later.lease.granted == 1)
    }

    @Test func overAnyStretchTheSlotsLeasedKeepToTheRate() {
        // Three callers asking in turn as fast as they can for a simulated second get 100 slots (plus the
        // horizon they may reserve ahead), never three times that.
        var next: Int64 = 0
        var granted = 0
        var now = Self.t0
        while now < Self.t0 + 1_000_000 {
            for _ in 0..<3 {
                let result = lease(next: next, now: now, want: 10)
                next = result.next
                granted += result.lease.granted
            }
            now += 1_000
        }
        #expect(granted <= 100 + Int(Self.horizon / Self.interval) + 1, "\(granted) slots in one second")
        #expect(granted >= 100)
    }

    @Test func aClockGoingBackwardsGrantsNothingEarly() {
        let first = lease(next: 0, now: Self.t0, want: 10)
        // The clock steps back 50 ms: the schedule does not.
        let back = lease(next: first.next, now: Self.t0 - 50_000, want: 10)
        #expect(back.lease.startsIn == 150_000, "the next slot is where it was, further from the earlier now")
        #expect(back.next == first.next + 100_000)
        // Stepped back by an hour, the schedule would wait an hour: it restarts from now instead.
        let hour: Int64 = 3_600_000_000
        let restarted = lease(next: back.next, now: Self.t0 - hour, want: 10)
        #expect(restarted.lease == RateLease(granted: 10, startsIn: 0, interval: Self.interval))
        #expect(restarted.next == Self.t0 - hour + 100_000)
    }

    @Test func aRateChangeAppliesFromTheNextLease() {
        let fast = lease(next: 0, now: Self.t0, want: 10)
        // Down to 10 a second: slots 100 ms apart from where the faster schedule ended.
        let slow = lease(next: fast.next, now: Self.t0, want: 3, interval: 100_000)
        #expect(slow.lease == RateLease(granted: 3, startsIn: 100_000, interval: 100_000))
        #expect(slow.next == Self.t0 + 400_000)
        // Up again from one every two seconds: a schedule left far ahead by the slow rate restarts from now.
        let crawl = lease(next: Self.t0, now: Self.t0, want: 1, interval: 2_000_000)
        let sped = lease(next: crawl.next, now: Self.t0, want: 10)
        #expect(sped.lease.startsIn == 0)
    }

    @Test func chargedSlotsMoveTheScheduleOnFirst() {
        let charged = lease(next: Self.t0, now: Self.t0, want: 10, charge: 5)
        #expect(charged.lease == RateLease(granted: 10, startsIn: 50_000, interval: Self.interval))
        let onlyCharge = lease(next: Self.t0, now: Self.t0, want: 0, charge: 2)
        #expect(onlyCharge.lease.granted == 0)
        #expect(onlyCharge.next == Self.t0 + 20_000)
    }

    @Test func aHorizonOfTheBurstIsATokenBucket() {
        // Burst 4 at 100 a second: four at once after a quiet spell, then one per interval.
        let horizon = 3 * Self.interval
        let burst = RateLease.schedule(
            next: 0, now: Self.t0, interval: Self.interval, want: 10, horizon: horizon)
        #expect(burst.lease.granted == 4)
        let empty = RateLease.schedule(
            next: burst.next, now: Self.t0, interval: Self.interval, want: 1, horizon: horizon)
        #expect(empty.lease == RateLease(granted: 0, startsIn: Self.interval, interval: Self.interval))
        let refilled = RateLease.schedule(
            next: burst.next, now: Self.t0 + Self.interval, interval: Self.interval, want: 10, horizon: horizon)
        #expect(refilled.lease.granted == 1)
    }
}
