import Testing

@testable import TidingsCampaigns

/// The throttle's arithmetic: push `i` at `start + i / rate`, expired from its expiry on, waves in due order.
@Suite struct DryRunThrottleTests {
    @Test func pushesAtOrPastTheirExpiryAreNotSentAndTakeNoSlot() {
        let throttle = DryRunThrottle(rate: 4)
        let result = throttle.run([
            DryRunThrottle.Wave(dueAt: 0, expiresAt: 1000, count: 10),
            DryRunThrottle.Wave(dueAt: 500, expiresAt: nil, count: 2),
        ])
        // 0, 250, 500, 750 ms go out; 1000 ms is the expiry. The second wave follows at 1000 and 1250 ms.
        #expect(result.sent == [4, 2])
        #expect(result.firstSendAt == 0)
        #expect(result.lastSendAt == 1250)
        #expect(result.endsAt == 1500)
    }

    @Test func withoutARateEveryWaveGoesAtItsDueTime() {
        let result = DryRunThrottle(rate: nil).run([
            DryRunThrottle.Wave(dueAt: 7000, expiresAt: 8000, count: 3),
            DryRunThrottle.Wave(dueAt: 2000, expiresAt: nil, count: 1),
        ])
        #expect(result.sent == [3, 1])
        #expect(result.firstSendAt == 2000)
        #expect(result.lastSendAt == 7000)
    }

    @Test func aWaveDueAfterItsExpirySendsNothing() {
        let result = DryRunThrottle(rate: 1).run([
            DryRunThrottle.Wave(dueAt: 0, expiresAt: nil, count: 10),
            DryRunThrottle.Wave(dueAt: 0, expiresAt: 5000, count: 3),
        ])
        // The wave that expires first goes first: its 3 at 0, 1 and 2 s; the other 10 after.
        #expect(result.sent == [10, 3])
        let late = DryRunThrottle(rate: 1).run([DryRunThrottle.Wave(dueAt: 9000, expiresAt: 9000, count: 2)])
        #expect(late.sent == [0])
        #expect(late.firstSendAt == nil)
    }

    @Test func paceTakesTheLowerRateAndSparesTransactionalFromTheCeiling() {
        #expect(DryRunDuration.pace(messageRate: 10, appRate: 5, transactional: false) == (5, .appCeiling))
        #expect(DryRunDuration.pace(messageRate: 5, appRate: 10, transactional: false) == (5, .messageRate))
        #expect(DryRunDuration.pace(messageRate: nil, appRate: 10, transactional: true) == (nil, .none))
        #expect(DryRunDuration.pace(messageRate: nil, appRate: nil, transactional: false) == (nil, .none))
    }
}
