import Testing
import TidingsServer

/// ``SendThrottle`` on explicit instants: rates space pushes, the app ceiling holds over messages, and
/// transactional pushes pass the ceiling while pushing it on.
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
}
