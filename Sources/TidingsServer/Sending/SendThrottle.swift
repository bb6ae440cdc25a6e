import Foundation
import TidingsModel

/// Paces pushes to a message's `rate_per_second` and to its app's ceiling, shared by every fan-out worker of
/// one process.
///
/// Each message and each app has a next-allowed instant that moves one interval (`1 / rate`) per push admitted
/// (a generic cell rate algorithm). A push is admitted when that instant is no more than ``tolerance`` ahead, so
/// the average holds while the worker's loop and timers stay coarse. Messages of one app take turns (the worker
/// offers them round-robin), so several messages sending at once share the app's ceiling equally.
///
/// Transactional messages are not held by the app's ceiling: they are admitted at once and push its next
/// instant on, so campaigns yield to them. Pacing is per process (the rate in real time, not a test's manual
/// clock); instances sharing one PostgreSQL database each apply the rates.
public final class SendThrottle: Sendable {
    /// How far ahead of its next-allowed instant a push may go: a short burst that keeps the rate on average.
    public let tolerance: Duration
    private let next = LockedBox<[String: ContinuousClock.Instant]>([:])

    public init(tolerance: Duration = .milliseconds(20)) {
        self.tolerance = tolerance
    }

    /// Admits one push of a message when both rates allow it now.
    /// - Returns: nil when admitted (and counted), else how long to wait before asking again.
    public func admit(
        messageID: String, messageRate: Int?, appID: String, appRate: Int?, transactional: Bool,
        now: ContinuousClock.Instant = .now
    ) -> Duration? {
        let messageKey = "message/" + messageID
        let appKey = "app/" + appID
        return next.withLock { next in
            var wait = Duration.zero
            if messageRate != nil, let allowed = next[messageKey] { wait = max(wait, allowed - tolerance - now) }
            if appRate != nil, !transactional, let allowed = next[appKey] {
                wait = max(wait, allowed - tolerance - now)
            }
            if wait > .zero { return wait }
            if let rate = messageRate { next[messageKey] = max(next[messageKey] ?? now, now) + Self.interval(rate) }
            if let rate = appRate { next[appKey] = max(next[appKey] ?? now, now) + Self.interval(rate) }
            if next.count > 10_000 {
                // Finished messages leave their entries behind: drop what is long past.
                next = next.filter { $0.value > now - .seconds(60) }
            }
            return nil
        }
    }

    static func interval(_ rate: Int) -> Duration { .nanoseconds(1_000_000_000 / Int64(max(1, rate))) }
}
