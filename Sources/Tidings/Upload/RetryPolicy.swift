/// Decides what follows an upload attempt: a pure function of (outcome, state, now, randomness).
///
/// - Transient failures (5xx, 429, 408, other unexpected statuses, transport errors, unreadable 2xx
///   bodies, receipts missing for some events) keep every event and back off with exponential backoff
///   and *full jitter*: the delay is uniform in `0...min(cap, base · 2^failures)`.
/// - `Retry-After` is a floor: the next attempt waits for the later of the server's time and the jittered
///   backoff, so a server that asks for 10 s gets at least 10 s, and many clients still spread out.
///   A `Retry-After` further away than ``maximumRetryAfterMilliseconds`` is clamped to it, so one bad
///   header cannot stall the queue for ever.
/// - 413 and a whole-batch 400 halve the batch (down to one event) to isolate what the server refuses;
///   a single event that is still refused is rejected alone and counted, never blocking the queue.
/// - 401 and 403 halt uploading without dropping anything.
/// - A success resets the failure count and doubles a lowered batch limit back towards the maximum.
/// - A cancelled request keeps everything and does not count as a failure.
public struct RetryPolicy: Sendable, Hashable {
    /// The first backoff step, in milliseconds (about one second).
    public var baseDelayMilliseconds: Int64
    /// The longest backoff, in milliseconds (five minutes).
    public var maximumDelayMilliseconds: Int64
    /// The largest batch, in events; the ceiling the batch limit grows back to.
    public var maximumBatchEvents: Int
    /// The furthest `Retry-After` the policy honours, in milliseconds (one day).
    public var maximumRetryAfterMilliseconds: Int64

    public init(
        baseDelayMilliseconds: Int64 = 1000, maximumDelayMilliseconds: Int64 = 300_000, maximumBatchEvents: Int = 500,
        maximumRetryAfterMilliseconds: Int64 = 24 * 3600 * 1000
    ) {
        self.baseDelayMilliseconds = max(1, baseDelayMilliseconds)
        self.maximumDelayMilliseconds = max(self.baseDelayMilliseconds, maximumDelayMilliseconds)
        self.maximumBatchEvents = max(1, maximumBatchEvents)
        self.maximumRetryAfterMilliseconds = max(0, maximumRetryAfterMilliseconds)
    }

    /// The state of an uploader that has not failed yet.
    public var initialState: RetryState { RetryState(batchLimit: maximumBatchEvents) }

    /// The verdict after an attempt that sent `batchSize` events and came to `outcome` at `now`.
    ///
    /// - Parameters:
    ///   - outcome: what the attempt came to.
    ///   - batchSize: how many events the attempt sent.
    ///   - state: the state before the attempt.
    ///   - now: milliseconds since 1970.
    ///   - random: the jitter source; seed it in tests.
    public func decide(
        after outcome: UploadOutcome, batchSize: Int, state: RetryState, now: Int64,
        random: inout some RandomNumberGenerator
    ) -> RetryDecision {
        switch outcome {
        case .receipts(missing: 0):
            var next = state
            next.consecutiveFailures = 0
            next.notBefore = nil
            next.batchLimit = min(maximumBatchEvents, max(1, state.batchLimit) * 2)
            return RetryDecision(action: .proceed, state: next)
        case .receipts:
            return backOff(state: state, now: now, retryAfter: nil, random: &random)
        case .unreadableResponse:
            return backOff(state: state, now: now, retryAfter: nil, random: &random)
        case .transportFailure(.cancelled):
            var next = state
            next.notBefore = nil
            return RetryDecision(action: .retryLater(at: now), state: next)
        case .transportFailure:
            return backOff(state: state, now: now, retryAfter: nil, random: &random)
        case .status(let status, let retryAfter):
            switch status {
            case 401, 403:
                var next = state
                next.notBefore = nil
                return RetryDecision(action: .halt(.unauthorized(status: status)), state: next)
            case 400, 413:
                var next = state
                next.notBefore = nil
                if batchSize > 1 {
                    next.batchLimit = max(1, batchSize / 2)
                    return RetryDecision(action: .shrinkBatch, state: next)
                }
                next.batchLimit = 1
                let reason = status == 413 ? "payload_too_large" : "bad_request"
                return RetryDecision(action: .rejectEvent(reason: reason), state: next)
            case 200..<300:
                // A 2xx reaches here only if the caller did not read it; nothing is known, so keep it all.
                return backOff(state: state, now: now, retryAfter: retryAfter, random: &random)
            default:
                // 5xx, 429, 408, and statuses we do not expect (404 from a misconfigured proxy, 3xx left
                // unfollowed): the events are fine, the path to the server is not, so keep them and wait.
                return backOff(state: state, now: now, retryAfter: retryAfter, random: &random)
            }
        }
    }

    /// The ceiling of the jittered delay after `failures` earlier failures: `min(cap, base · 2^failures)`.
    public func backoffCeiling(failures: Int) -> Int64 {
        let exponent = max(0, failures)
        // 2^exponent overflows long before the cap matters; stop doubling once the cap is reached.
        var ceiling = baseDelayMilliseconds
        var step = 0
        while step < exponent && ceiling < maximumDelayMilliseconds {
            ceiling *= 2
            step += 1
        }
        return min(ceiling, maximumDelayMilliseconds)
    }

    private func backOff(
        state: RetryState, now: Int64, retryAfter: Int64?, random: inout some RandomNumberGenerator
    ) -> RetryDecision {
        let ceiling = backoffCeiling(failures: state.consecutiveFailures)
        let jittered = Self.uniform(upTo: ceiling, using: &random)
        var at = now + jittered
        if let retryAfter {
            at = max(at, min(retryAfter, now + maximumRetryAfterMilliseconds))
        }
        var next = state
        next.consecutiveFailures = state.consecutiveFailures + 1
        next.notBefore = at
        return RetryDecision(action: .retryLater(at: at), state: next)
    }

    /// A uniform draw in `0...ceiling` from one 64-bit word: the top 53 bits as a fraction of the range.
    ///
    /// One draw per decision (no rejection loop), so any generator, even a constant one, pins the result:
    /// an all-zero word gives 0 and an all-ones word gives `ceiling`.
    static func uniform(upTo ceiling: Int64, using random: inout some RandomNumberGenerator) -> Int64 {
        let fraction = Double(random.next() >> 11) * 0x1p-53
        return min(ceiling, Int64(fraction * Double(ceiling + 1)))
    }
}
