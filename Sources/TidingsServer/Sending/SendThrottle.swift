import Foundation
import TidingsModel

/// Paces pushes to a message's `rate_per_second` and to its app's ceiling, over every fan-out worker of one
/// process and, with a ``SharedRateSchedule``, over every instance sharing the store.
///
/// Each rate is a schedule of slots one interval (`1 / rate`) apart. The throttle leases slots a batch at a
/// time (``batchSpan`` of the rate, starting at most ``horizon`` ahead) from its ``RateSlotSource`` and admits a
/// push when the next slot it holds of each rate that applies starts within ``tolerance``. A slot left unused
/// ``lateness`` after its start is given up rather than sent late, so a worker that fell behind does not catch
/// up in a burst. Instances never hold the same slot, so together they push at most the rate, plus what the
/// tolerance and the lateness let slots move: in any one second at most `rate × (1 + (tolerance + lateness) /
/// 1 s)` and one push (docs/campaigns.md). An instance with nothing to send leases nothing, so the others get
/// the whole rate.
///
/// Messages of one app take turns (the worker offers them round-robin), so several messages sending at once
/// share the app's ceiling. Transactional messages are not held by the app's ceiling: they are admitted at
/// once and take the next slot of the ceiling this process holds, or, holding none, move the shared schedule on
/// by one slot at its next lease, so campaigns yield to them.
public final class SendThrottle: Sendable {
    /// How far ahead of its slot a push may go: timers and the worker's loop are coarse.
    public let tolerance: Duration
    /// How long after its start an unused slot may still be used.
    public let lateness: Duration
    /// How far ahead of now a lease may reserve slots.
    public let horizon: Duration
    /// Slots leased at a time: this long of the rate (at least one slot).
    public static let batchSpan: Duration = .milliseconds(100)
    let source: any RateSlotSource
    private let state = LockedBox(State())

    /// - Parameters:
    ///   - source: where slots come from; this process's own schedule unless given.
    public init(
        tolerance: Duration = .milliseconds(20), lateness: Duration = .milliseconds(50),
        horizon: Duration = .milliseconds(300), source: (any RateSlotSource)? = nil
    ) {
        self.tolerance = tolerance
        self.lateness = lateness
        self.horizon = horizon
        self.source = source ?? LocalRateSchedule()
    }

    /// Admits one push of a message when both rates allow it now.
    /// - Returns: nil when admitted (and counted), else how long to wait before asking again.
    public func admit(
        messageID: String, messageRate: Int?, appID: String, appRate: Int?, transactional: Bool,
        now: ContinuousClock.Instant = .now
    ) -> Duration? {
        var paced: [(name: String, rate: Int)] = []
        if let rate = messageRate { paced.append(("message/" + messageID, rate)) }
        if let rate = appRate, !transactional { paced.append(("app/" + appID, rate)) }
        let charged = transactional ? appRate.map { (name: "app/" + appID, rate: $0) } : nil
        for round in 0..<2 {
            let decision: Decision = state.withLock { state in
                var wait = Duration.zero
                var missing: [(name: String, rate: Int, charge: Int)] = []
                for (name, rate) in paced {
                    if let slot = state.nextSlot(name, now: now, lateness: lateness) {
                        wait = max(wait, slot - tolerance - now)
                    } else if let until = state.blockedUntil[name], until > now {
                        wait = max(wait, until - now)
                    } else {
                        missing.append((name, rate, state.debts.removeValue(forKey: name) ?? 0))
                    }
                }
                if !missing.isEmpty { return .lease(missing) }
                if wait > .zero { return .wait(wait) }
                for (name, _) in paced { state.consume(name) }
                if let (name, rate) = charged {
                    if state.nextSlot(name, now: now, lateness: lateness) != nil {
                        state.consume(name)
                    } else {
                        // At most a second of the ceiling is owed: more would hold campaigns back for long.
                        state.debts[name] = min(rate, (state.debts[name] ?? 0) + 1)
                    }
                }
                return .admitted
            }
            switch decision {
            case .admitted:
                return nil
            case .wait(let wait):
                return wait
            case .lease(let missing):
                // Another worker took the slots just leased: look again shortly.
                if round > 0 { return .milliseconds(1) }
                for (name, rate, charge) in missing { lease(name, rate: rate, charge: charge, now: now) }
            }
        }
        return .milliseconds(1)
    }

    /// Leases a batch of slots of `name` from the source, outside the lock: a shared source asks the store.
    private func lease(_ name: String, rate: Int, charge: Int, now: ContinuousClock.Instant) {
        let interval = Self.interval(rate)
        let want = max(1, Int(Double(rate) * (Self.batchSpan / .seconds(1))))
        let lease = source.lease(name, interval: interval, want: want, charge: charge, horizon: horizon, now: now)
        state.withLock { state in
            if lease.granted > 0 {
                state.held[name, default: []].append(
                    Slots(first: lease.first, interval: lease.interval, count: lease.granted))
                state.held[name]?.sort { $0.first < $1.first }
                state.blockedUntil[name] = nil
            } else {
                state.blockedUntil[name] = lease.first
            }
            if state.blockedUntil.count + state.held.count > 10_000 {
                // Finished messages leave their entries behind: drop what is long past.
                state.blockedUntil = state.blockedUntil.filter { $0.value > now - .seconds(60) }
                for name in Array(state.held.keys) { _ = state.nextSlot(name, now: now, lateness: lateness) }
            }
        }
    }

    static func interval(_ rate: Int) -> Duration { .nanoseconds(1_000_000_000 / Int64(max(1, rate))) }

    private enum Decision {
        case admitted
        case wait(Duration)
        case lease([(name: String, rate: Int, charge: Int)])
    }

    /// Consecutive slots of one lease.
    private struct Slots {
        var first: ContinuousClock.Instant
        var interval: Duration
        var count: Int
    }

    private struct State {
        /// The slots held of each rate, earliest first.
        var held: [String: [Slots]] = [:]
        /// Rates whose schedule is leased a horizon ahead: not asked again before then.
        var blockedUntil: [String: ContinuousClock.Instant] = [:]
        /// Slots of app ceilings taken by transactional pushes without a lease, charged at the next lease.
        var debts: [String: Int] = [:]

        /// The start of the next slot held of `name`, giving up the ones more than `lateness` past.
        mutating func nextSlot(
            _ name: String, now: ContinuousClock.Instant, lateness: Duration
        ) -> ContinuousClock.Instant? {
            guard var ranges = held[name] else { return nil }
            let oldest = now - lateness
            while let range = ranges.first, range.first < oldest {
                let missed = Int(((oldest - range.first) / range.interval).rounded(.up))
                if missed >= range.count {
                    ranges.removeFirst()
                } else {
                    ranges[0].first += range.interval * missed
                    ranges[0].count -= missed
                }
            }
            held[name] = ranges.isEmpty ? nil : ranges
            return ranges.first?.first
        }

        /// Uses the next slot held of `name` (``nextSlot(_:now:lateness:)`` found one).
        mutating func consume(_ name: String) {
            guard var ranges = held[name], !ranges.isEmpty else { return }
            ranges[0].first += ranges[0].interval
            ranges[0].count -= 1
            if ranges[0].count == 0 { ranges.removeFirst() }
            held[name] = ranges.isEmpty ? nil : ranges
        }
    }
}
