import Testing
import Tidings
import TidingsTesting

@Suite struct RetryPolicyTests {
    let policy = RetryPolicy(baseDelayMilliseconds: 1000, maximumDelayMilliseconds: 300_000, maximumBatchEvents: 500)
    let now: Int64 = 1_800_000_000_000

    /// Shorthand for the action kinds, so table rows stay one line.
    enum Kind: Equatable {
        case proceed, retryLater, shrink, reject(String), halt(UploadError)
    }

    static func kind(_ action: RetryDecision.Action) -> Kind {
        switch action {
        case .proceed: .proceed
        case .retryLater: .retryLater
        case .shrinkBatch: .shrink
        case .rejectEvent(let reason): .reject(reason)
        case .halt(let error): .halt(error)
        }
    }

    struct Row: Sendable, CustomStringConvertible {
        var outcome: UploadOutcome
        var batchSize: Int
        var failures: Int
        var limit: Int
        var kind: Kind
        var nextFailures: Int
        var nextLimit: Int
        var description: String { "\(outcome) batch=\(batchSize) failures=\(failures)" }
    }

    static let table: [Row] = [
        // Success resets failures and grows a lowered limit back, capped at the maximum.
        Row(
            outcome: .receipts(missing: 0), batchSize: 10, failures: 4, limit: 8, kind: .proceed, nextFailures: 0,
            nextLimit: 16),
        Row(
            outcome: .receipts(missing: 0), batchSize: 500, failures: 0, limit: 500, kind: .proceed, nextFailures: 0,
            nextLimit: 500),
        Row(
            outcome: .receipts(missing: 0), batchSize: 300, failures: 0, limit: 300, kind: .proceed, nextFailures: 0,
            nextLimit: 500),
        // Missing receipts, garbage bodies, 5xx, 429, 408, unknown 4xx and transport failures back off.
        Row(
            outcome: .receipts(missing: 2), batchSize: 10, failures: 0, limit: 500, kind: .retryLater,
            nextFailures: 1, nextLimit: 500),
        Row(
            outcome: .unreadableResponse, batchSize: 10, failures: 2, limit: 500, kind: .retryLater,
            nextFailures: 3, nextLimit: 500),
        Row(
            outcome: .status(500, retryAfter: nil), batchSize: 10, failures: 0, limit: 500, kind: .retryLater,
            nextFailures: 1, nextLimit: 500),
        Row(
            outcome: .status(503, retryAfter: nil), batchSize: 10, failures: 7, limit: 64, kind: .retryLater,
            nextFailures: 8, nextLimit: 64),
        Row(
            outcome: .status(429, retryAfter: nil), batchSize: 10, failures: 0, limit: 500, kind: .retryLater,
            nextFailures: 1, nextLimit: 500),
        Row(
            outcome: .status(408, retryAfter: nil), batchSize: 10, failures: 0, limit: 500, kind: .retryLater,
            nextFailures: 1, nextLimit: 500),
        Row(
            outcome: .status(404, retryAfter: nil), batchSize: 10, failures: 0, limit: 500, kind: .retryLater,
            nextFailures: 1, nextLimit: 500),
        Row(
            outcome: .transportFailure(.timeout), batchSize: 10, failures: 0, limit: 500, kind: .retryLater,
            nextFailures: 1, nextLimit: 500),
        Row(
            outcome: .transportFailure(.connectionFailed), batchSize: 10, failures: 1, limit: 500,
            kind: .retryLater, nextFailures: 2, nextLimit: 500),
        // Cancellation is not the server's fault: no failure is counted.
        Row(
            outcome: .transportFailure(.cancelled), batchSize: 10, failures: 1, limit: 500, kind: .retryLater,
            nextFailures: 1, nextLimit: 500),
        // 413 and 400 halve the batch actually sent, then reject a single event alone.
        Row(
            outcome: .status(413, retryAfter: nil), batchSize: 500, failures: 0, limit: 500, kind: .shrink,
            nextFailures: 0, nextLimit: 250),
        Row(
            outcome: .status(413, retryAfter: nil), batchSize: 3, failures: 0, limit: 500, kind: .shrink,
            nextFailures: 0, nextLimit: 1),
        Row(
            outcome: .status(413, retryAfter: nil), batchSize: 1, failures: 0, limit: 1,
            kind:
                .reject("payload_too_large"), nextFailures: 0, nextLimit: 1),
        Row(
            outcome: .status(400, retryAfter: nil), batchSize: 4, failures: 0, limit: 500, kind: .shrink,
            nextFailures: 0, nextLimit: 2),
        Row(
            outcome: .status(400, retryAfter: nil), batchSize: 1, failures: 0, limit: 1, kind: .reject("bad_request"),
            nextFailures: 0, nextLimit: 1),
        // 401 and 403 halt without touching the counters.
        Row(
            outcome: .status(401, retryAfter: nil), batchSize: 10, failures: 3, limit: 500,
            kind: .halt(.unauthorized(status: 401)), nextFailures: 3, nextLimit: 500),
        Row(
            outcome: .status(403, retryAfter: nil), batchSize: 10, failures: 0, limit: 500,
            kind: .halt(.unauthorized(status: 403)), nextFailures: 0, nextLimit: 500),
    ]

    @Test(arguments: table)
    func decisionTable(row: Row) {
        var random = SeededRandomNumberGenerator(seed: 42)
        let state = RetryState(consecutiveFailures: row.failures, batchLimit: row.limit)
        let decision = policy.decide(
            after: row.outcome, batchSize: row.batchSize, state: state, now: now, random: &random)
        #expect(Self.kind(decision.action) == row.kind)
        #expect(decision.state.consecutiveFailures == row.nextFailures)
        #expect(decision.state.batchLimit == row.nextLimit)
        if case .retryLater(let at) = decision.action {
            #expect(at >= now)
            if case .transportFailure(.cancelled) = row.outcome {
                #expect(decision.state.notBefore == nil)
            } else {
                #expect(decision.state.notBefore == at)
                #expect(at <= now + policy.backoffCeiling(failures: row.failures))
            }
        } else {
            #expect(decision.state.notBefore == nil)
        }
    }

    @Test(
        arguments: [
            (0, 1000), (1, 2000), (2, 4000), (5, 32000), (8, 256_000), (9, 300_000), (62, 300_000),
            (10_000, 300_000),
        ] as [(Int, Int64)])
    func backoffCeilingDoublesUpToTheCap(failures: Int, ceiling: Int64) {
        #expect(policy.backoffCeiling(failures: failures) == ceiling)
    }

    @Test(arguments: [0, 1, 4, 9, 20])
    func fullJitterSpansZeroToTheCeiling(failures: Int) {
        let state = RetryState(consecutiveFailures: failures, batchLimit: 500)
        var low = FixedRandomNumberGenerator(value: 0)
        var high = FixedRandomNumberGenerator(value: .max)
        let earliest = policy.decide(
            after: .status(503, retryAfter: nil), batchSize: 1, state: state, now: now, random: &low)
        let latest = policy.decide(
            after: .status(503, retryAfter: nil), batchSize: 1, state: state, now: now, random: &high)
        #expect(earliest.action == .retryLater(at: now))
        #expect(latest.action == .retryLater(at: now + policy.backoffCeiling(failures: failures)))
    }

    @Test func seededJitterIsSpreadAndBounded() {
        var random = SeededRandomNumberGenerator(seed: 7)
        let state = RetryState(consecutiveFailures: 3, batchLimit: 500)
        var delays: Set<Int64> = []
        for _ in 0..<200 {
            let decision = policy.decide(
                after: .transportFailure(.timeout), batchSize: 1, state: state, now: now, random: &random)
            guard case .retryLater(let at) = decision.action else {
                Issue.record("expected a retry, got \(decision.action)")
                return
            }
            #expect((0...8000).contains(at - now))
            delays.insert(at - now)
        }
        // Full jitter, not equal jitter: draws land in the lower half too, and they differ.
        #expect(delays.count > 150)
        #expect(delays.contains { $0 < 4000 })
    }

    @Test func sameSeedSameDecisions() {
        var first = SeededRandomNumberGenerator(seed: 99)
        var second = SeededRandomNumberGenerator(seed: 99)
        let state = RetryState(consecutiveFailures: 6, batchLimit: 500)
        for _ in 0..<20 {
            let a = policy.decide(
                after: .status(502, retryAfter: nil), batchSize: 5, state: state, now: now,
                random: &first)
            let b = policy.decide(
                after: .status(502, retryAfter: nil), batchSize: 5, state: state, now: now,
                random: &second)
            #expect(a == b)
        }
    }

    @Test func retryAfterIsAFloorUnderTheJitter() {
        let state = RetryState(consecutiveFailures: 0, batchLimit: 500)
        var high = FixedRandomNumberGenerator(value: .max)
        let decision = policy.decide(
            after: .status(429, retryAfter: now + 120_000), batchSize: 1, state: state, now: now, random: &high)
        #expect(decision.action == .retryLater(at: now + 120_000))
        #expect(decision.state.notBefore == now + 120_000)
    }

    @Test func jitterLaterThanRetryAfterWins() {
        let state = RetryState(consecutiveFailures: 5, batchLimit: 500)
        var high = FixedRandomNumberGenerator(value: .max)
        let decision = policy.decide(
            after: .status(503, retryAfter: now + 2000), batchSize: 1, state: state, now: now, random: &high)
        #expect(decision.action == .retryLater(at: now + 32000))
    }

    @Test func retryAfterInThePastFallsBackToTheJitter() {
        let state = RetryState(consecutiveFailures: 0, batchLimit: 500)
        var low = FixedRandomNumberGenerator(value: 0)
        let decision = policy.decide(
            after: .status(503, retryAfter: now - 60_000), batchSize: 1, state: state, now: now, random: &low)
        #expect(decision.action == .retryLater(at: now))
    }

    @Test func absurdRetryAfterIsClampedToOneDay() {
        let state = RetryState(consecutiveFailures: 0, batchLimit: 500)
        var low = FixedRandomNumberGenerator(value: 0)
        let decision = policy.decide(
            after: .status(503, retryAfter: now + 90 * 24 * 3600 * 1000), batchSize: 1, state: state, now: now,
            random: &low)
        #expect(decision.action == .retryLater(at: now + 24 * 3600 * 1000))
    }

    @Test func oddConfigurationIsClampedToSaneBounds() {
        let odd = RetryPolicy(baseDelayMilliseconds: 0, maximumDelayMilliseconds: -5, maximumBatchEvents: 0)
        #expect(odd.baseDelayMilliseconds == 1)
        #expect(odd.maximumDelayMilliseconds == 1)
        #expect(odd.maximumBatchEvents == 1)
        #expect(odd.initialState == RetryState(batchLimit: 1))
    }
}
