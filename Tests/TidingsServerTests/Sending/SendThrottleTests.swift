import Testing
import TidingsModel
import TidingsServer

/// ``SendThrottle`` on explicit instants: rates space pushes, the app ceiling holds over messages, and
/// transactional pushes pass the ceiling while pushing it on; slots come in leased batches, and lapse.
@Suite struct SendThrottleTests {
    let start = ContinuousClock.now

    @Test func aMessageRateSpacesPushesAfterAShortBurst() {
        let throttle = SendThrottle(tolerance: .zero)
        func admit(at offset: Duration) -> Duration? {
            throttle.admit(
                messageID: "m", messageRate: 10, appID: "a", appRate: nil, transactional: false, now: start + offset)
        }
        #expect(admit(at: .zero) == nil)
        #expect(admit(at: .milliseconds(40)) == .milliseconds(60), "the next slot is 100 ms after the first")
        #expect(admit(at: .milliseconds(100)) == nil)
        #expect(admit(at: .milliseconds(150)) == .milliseconds(50))
        #expect(
            throttle.admit(
                messageID: "other", messageRate: nil, appID: "a", appRate: nil, transactional: false,
                now: start + .milliseconds(150)) == nil, "an unpaced message is not held by another's rate")
    }

    @Test func theAppCeilingHoldsOverMessagesButNotTransactionalOnes() {
        let throttle = SendThrottle(tolerance: .zero)
        func admit(_ message: String, transactional: Bool = false, at offset: Duration) -> Duration? {
            throttle.admit(
                messageID: message, messageRate: nil, appID: "a", appRate: 4, transactional: transactional,
                now: start + offset)
        }
        #expect(admit("one", at: .zero) == nil)
        #expect(admit("two", at: .milliseconds(100)) == .milliseconds(150), "the app's 4 a second cover both")
        #expect(admit("reset", transactional: true, at: .milliseconds(100)) == nil)
        // The transactional push took the next slot: the campaign waits one more interval.
        #expect(admit("two", at: .milliseconds(250)) == .milliseconds(250))
        #expect(admit("two", at: .milliseconds(500)) == nil)
        #expect(
            throttle.admit(
                messageID: "x", messageRate: nil, appID: "b", appRate: 4, transactional: false,
                now: start + .milliseconds(500)) == nil, "another app has its own ceiling")
    }

    @Test func theToleranceLetsAShortBurstThrough() {
        let throttle = SendThrottle(tolerance: .milliseconds(250))
        var admitted = 0
        for _ in 0..<10 {
            if throttle.admit(
                messageID: "m", messageRate: 10, appID: "a", appRate: nil, transactional: false, now: start) == nil
            {
                admitted += 1
            }
        }
        #expect(admitted == 3, "slots at 0, 100 and 200 ms are within 250 ms")
    }

    /// This process's schedule, counting the leases asked of it (as a shared one would ask its store).
    final class CountingSource: RateSlotSource {
        let local = LocalRateSchedule()
        let wants = LockedBox<[Int]>([])

        func lease(
            _ name: String, interval: Duration, want: Int, charge: Int, horizon: Duration,
            now: ContinuousClock.Instant
        ) -> SlotLease {
            wants.withLock { $0.append(want) }
            return local.lease(name, interval: interval, want: want, charge: charge, horizon: horizon, now: now)
        }
    }

    @Test func slotsAreLeasedATenthOfASecondAtATime() {
        let source = CountingSource()
        let throttle = SendThrottle(tolerance: .zero, source: source)
        var admitted = 0
        for step in 0..<25 {
            if throttle.admit(
                messageID: "m", messageRate: 100, appID: "a", appRate: nil, transactional: false,
                now: start + .milliseconds(10) * step) == nil
            {
                admitted += 1
            }
        }
        #expect(admitted == 25, "one slot every 10 ms")
        #expect(source.wants.withLock { $0 } == [10, 10, 10], "three leases of ten slots, not one per push")
    }

    @Test func aSlotLeftUnusedPastItsLatenessIsGivenUpNotSentInABurst() {
        let throttle = SendThrottle(tolerance: .zero, lateness: .milliseconds(30))
        #expect(
            throttle.admit(
                messageID: "m", messageRate: 100, appID: "a", appRate: nil, transactional: false, now: start) == nil)
        // 95 ms later the slots at 10 ... 60 ms are too late; 70, 80 and 90 ms are still usable, then 100 is not yet.
        var admitted = 0
        for _ in 0..<10 {
            if throttle.admit(
                messageID: "m", messageRate: 100, appID: "a", appRate: nil, transactional: false,
                now: start + .milliseconds(95)) == nil
            {
                admitted += 1
            }
        }
        #expect(admitted == 3)
    }

    @Test func aScheduleLeasedAHorizonAheadIsNotAskedAgainUntilItComesBack() {
        let source = CountingSource()
        let throttle = SendThrottle(tolerance: .zero, horizon: .milliseconds(50), source: source)
        // Another instance took the next 200 ms of the rate.
        _ = source.local.lease(
            "message/m", interval: .milliseconds(10), want: 20, charge: 0, horizon: .milliseconds(300), now: start)
        let wait = throttle.admit(
            messageID: "m", messageRate: 100, appID: "a", appRate: nil, transactional: false, now: start)
        #expect(wait == .milliseconds(150))
        #expect(
            throttle.admit(
                messageID: "m", messageRate: 100, appID: "a", appRate: nil, transactional: false,
                now: start + .milliseconds(100)) == .milliseconds(50))
        #expect(source.wants.withLock { $0.count } == 1, "one lease refused, and none asked for while waiting")
    }

    /// Two instances' throttles on one schedule (as on one store), stepping through a simulated second 1 ms at a
    /// time: both pushing as fast as they may stay within the rate together; one alone gets all of it.
    @Test(arguments: [true, false])
    func throttlesSharingASchedulePushTheRateTogetherAndOneAloneGetsAllOfIt(_ bothBusy: Bool) {
        let schedule = LocalRateSchedule()
        let throttles = [
            SendThrottle(tolerance: .zero, source: schedule), SendThrottle(tolerance: .zero, source: schedule),
        ]
        var pushed = [0, 0]
        for step in 0..<1_000 {
            for (index, throttle) in throttles.enumerated() where bothBusy || index == 0 {
                while throttle.admit(
                    messageID: "m", messageRate: 200, appID: "a", appRate: nil, transactional: false,
                    now: start + .milliseconds(step)) == nil
                {
                    pushed[index] += 1
                }
            }
        }
        #expect(pushed.reduce(0, +) == 200, "one slot every 5 ms over the second, between them: \(pushed)")
        if bothBusy {
            #expect(pushed.allSatisfy { $0 >= 80 }, "each gets a fair part: \(pushed)")
        }
    }
}
