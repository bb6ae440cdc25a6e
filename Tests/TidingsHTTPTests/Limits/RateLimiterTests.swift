import Dispatch
import Foundation
import Testing
import TidingsHTTP
import TidingsModel
import TidingsTestSupport

@Suite struct RateLimiterTests {
    static func limiter(burst: Int, perSecond: Double, maximumKeys: Int = 1000) -> (RateLimiter, TestClock) {
        let clock = TestClock()
        let limiter = RateLimiter(
            limit: RateLimit(burst: burst, perSecond: perSecond), maximumKeys: maximumKeys, clock: clock)
        return (limiter, clock)
    }

    @Test func aBurstIsAllowedBackToBackThenRefused() {
        let (limiter, _) = Self.limiter(burst: 3, perSecond: 1)
        #expect((0..<3).map { _ in limiter.acquire("key") } == [.allowed, .allowed, .allowed])
        #expect(limiter.acquire("key") == .denied(retryAfterSeconds: 1))
        #expect(limiter.acquire("key") == .denied(retryAfterSeconds: 1))
    }

    @Test func tokensComeBackAtTheRateAndNeverPastTheBurst() {
        let (limiter, clock) = Self.limiter(burst: 2, perSecond: 0.5)
        #expect(limiter.acquire("key") == .allowed)
        #expect(limiter.acquire("key") == .allowed)
        #expect(limiter.acquire("key") == .denied(retryAfterSeconds: 2))
        clock.advance(by: .seconds(1))
        // Half a token is there: the other half takes one more second.
        #expect(limiter.acquire("key") == .denied(retryAfterSeconds: 1))
        clock.advance(by: .seconds(1))
        #expect(limiter.acquire("key") == .allowed)
        #expect(limiter.acquire("key") == .denied(retryAfterSeconds: 2))
        // An hour idle fills the bucket, and no more.
        clock.advance(by: .seconds(3600))
        #expect((0..<3).map { _ in limiter.acquire("key") } == [.allowed, .allowed, .denied(retryAfterSeconds: 2)])
    }

    @Test(arguments: [(0.3, 4), (100.0, 1), (1.0 / 60, 60)])
    func retryAfterIsWholeSecondsRoundedUpAndAtLeastOne(perSecond: Double, expected: Int) {
        let (limiter, _) = Self.limiter(burst: 1, perSecond: perSecond)
        #expect(limiter.acquire("key") == .allowed)
        #expect(limiter.acquire("key") == .denied(retryAfterSeconds: expected))
    }

    @Test func keysHaveSeparateBuckets() {
        let (limiter, _) = Self.limiter(burst: 1, perSecond: 1)
        #expect(limiter.acquire("a") == .allowed)
        #expect(limiter.acquire("a") == .denied(retryAfterSeconds: 1))
        #expect(limiter.acquire("b") == .allowed)
        #expect(limiter.keyCount == 2)
    }

    @Test func aLimitPerCallOverridesTheDefault() {
        let (limiter, _) = Self.limiter(burst: 1, perSecond: 1)
        let generous = RateLimit(burst: 5, perSecond: 1)
        #expect((0..<5).allSatisfy { _ in limiter.acquire("big", limit: generous).isAllowed })
        #expect(limiter.acquire("big", limit: generous) == .denied(retryAfterSeconds: 1))
        #expect(limiter.acquire("small") == .allowed)
        #expect(limiter.acquire("small") == .denied(retryAfterSeconds: 1))
    }

    @Test func statusLooksWithoutTakingOrRemembering() {
        let (limiter, _) = Self.limiter(burst: 2, perSecond: 0.25)
        #expect(limiter.status(of: "new") == .allowed)
        #expect(limiter.keyCount == 0)
        #expect(limiter.acquire("key") == .allowed)
        #expect(limiter.status(of: "key") == .allowed)
        #expect(limiter.status(of: "key") == .allowed)
        #expect(limiter.acquire("key") == .allowed)
        #expect(limiter.status(of: "key") == .denied(retryAfterSeconds: 4))
    }

    @Test func resetForgetsAKey() {
        let (limiter, _) = Self.limiter(burst: 1, perSecond: 0.01)
        #expect(limiter.acquire("key") == .allowed)
        #expect(!limiter.acquire("key").isAllowed)
        limiter.reset("key")
        #expect(limiter.keyCount == 0)
        #expect(limiter.acquire("key") == .allowed)
    }

    @Test func aClockSteppingBackRefillsNothingAndCountsOnFromThere() {
        let (limiter, clock) = Self.limiter(burst: 1, perSecond: 1)
        #expect(limiter.acquire("key") == .allowed)
        clock.advance(by: .seconds(-3600))
        #expect(limiter.acquire("key") == .denied(retryAfterSeconds: 1))
        clock.advance(by: .seconds(1))
        #expect(limiter.acquire("key") == .allowed)
    }

    @Test func aFloodOfDistinctKeysStaysWithinTheBound() {
        let (limiter, clock) = Self.limiter(burst: 5, perSecond: 1, maximumKeys: 64)
        for index in 0..<10_000 {
            _ = limiter.acquire("flood-\(index)")
            #expect(limiter.keyCount <= 64)
            if index % 100 == 0 { clock.advance(by: .milliseconds(10)) }
        }
        #expect(limiter.keyCount <= 64)
        #expect(limiter.evictions >= 10_000 - 64)
    }

    @Test func fullBucketsAreForgottenBeforeBusyOnes() {
        let (limiter, clock) = Self.limiter(burst: 2, perSecond: 1, maximumKeys: 4)
        for key in ["idle", "busy-1", "busy-2", "busy-3"] { _ = limiter.acquire(key) }
        clock.advance(by: .seconds(10))
        // The busy keys spend everything again; the idle one has been full for seconds.
        for key in ["busy-1", "busy-2", "busy-3"] {
            #expect(limiter.acquire(key) == .allowed)
            #expect(limiter.acquire(key) == .allowed)
        }
        #expect(limiter.acquire("newcomer") == .allowed)
        #expect(limiter.keyCount == 4)
        #expect(limiter.evictions == 1)
        for key in ["busy-1", "busy-2", "busy-3"] {
            #expect(limiter.acquire(key) == .denied(retryAfterSeconds: 1), "\(key) must still be limited")
        }
    }

    @Test func withNoFullBucketTheOneClosestToFullGoes() {
        let (limiter, _) = Self.limiter(burst: 4, perSecond: 1, maximumKeys: 4)
        // Tokens left: almost-full 3, empty 0, one-left 1, two-left 2.
        for (key, spent) in [("almost-full", 1), ("empty", 4), ("one-left", 3), ("two-left", 2)] {
            for _ in 0..<spent { #expect(limiter.acquire(key) == .allowed) }
        }
        #expect(limiter.acquire("newcomer") == .allowed)
        #expect(limiter.evictions == 1)
        #expect(limiter.acquire("empty") == .denied(retryAfterSeconds: 1))
        #expect(limiter.acquire("one-left") == .allowed)
        #expect(limiter.acquire("one-left") == .denied(retryAfterSeconds: 1))
        // Forgotten, so it starts again with a full bucket of four.
        #expect((0..<4).allSatisfy { _ in limiter.acquire("almost-full").isAllowed })
    }

    @Test func concurrentCallersWithDistinctKeysStayWithinTheBound() {
        let (limiter, _) = Self.limiter(burst: 1, perSecond: 0.001, maximumKeys: 16)
        let allowed = LockedBox(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<400 where limiter.acquire("thread-\(thread)-\(index)").isAllowed {
                allowed.withLock { $0 += 1 }
            }
        }
        // Every key was new, so each got its first token; the table never grew past its bound.
        #expect(allowed.withLock { $0 } == 3200)
        #expect(limiter.keyCount <= 16)
        #expect(limiter.evictions >= 3200 - 16)
    }

    @Test func concurrentCallersOnOneKeyGetExactlyTheBurst() {
        let (limiter, _) = Self.limiter(burst: 500, perSecond: 0.001)
        let allowed = LockedBox(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<200 where limiter.acquire("shared").isAllowed { allowed.withLock { $0 += 1 } }
        }
        #expect(allowed.withLock { $0 } == 500)
    }

    @Test func enforceThrows429WithRetryAfterAndTheLimit() {
        let (limiter, _) = Self.limiter(burst: 2, perSecond: 0.2)
        #expect(throws: Never.self) { try limiter.enforce("key") }
        #expect(throws: Never.self) { try limiter.enforce("key") }
        do {
            try limiter.enforce("key")
            Issue.record("expected a 429")
        } catch {
            #expect(error.status == 429)
            #expect(error.code == "rate_limited")
            #expect(error.headers["Retry-After"] == "5")
            #expect(error.message == "too many requests: limit 0.2 per second (burst 2); retry after 5 s")
            #expect(error.message.contains("retry after 5 s"))
        }
    }

    @Test func limitsAreNamedForPeople() {
        #expect(RateLimit(burst: 20, perSecond: 10).description == "10 per second (burst 20)")
        #expect(RateLimit(burst: 1, perSecond: 0.5).description == "0.5 per second (burst 1)")
        #expect(!RateLimit.isValid(burst: 0, perSecond: 1))
        #expect(!RateLimit.isValid(burst: 1, perSecond: 0))
        #expect(!RateLimit.isValid(burst: 1, perSecond: .infinity))
        #expect(RateLimit.isValid(burst: 1, perSecond: 0.01))
    }
}
