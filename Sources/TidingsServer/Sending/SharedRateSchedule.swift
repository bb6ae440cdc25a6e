import Foundation
import TidingsModel
import TidingsStore

/// Rates shared by every instance on one store: slots are leased a batch at a time from the rate's schedule in
/// the store (``TidingsStore/ClusterStore/leaseRate(_:interval:want:charge:horizon:now:)``), so instances
/// together keep to the rate while a push or a request costs no store round trip of its own.
///
/// When the store cannot be reached the rate is not left unbounded: each instance then takes its share, the
/// rate divided by the instances it last saw alive (heartbeats, counted every ``instanceCountInterval``), on a
/// schedule of its own (``LocalRateSchedule``), and asks the store again after ``retryInterval``.
public final class SharedRateSchedule: RateSlotSource {
    /// How often the live instances are counted, for the share taken while the store is out of reach.
    public static let instanceCountInterval: Duration = .seconds(10)
    /// How long after a failed lease the store is left alone: a store that is down would otherwise cost a
    /// connection timeout per lease.
    public static let retryInterval: Duration = .seconds(1)

    let store: any Store
    let logger: Logger
    private let fallback = LocalRateSchedule()
    private let state = LockedBox(State())

    private struct State {
        var instances = 1
        var countedAt: ContinuousClock.Instant?
        var failedAt: ContinuousClock.Instant?
    }

    public init(store: any Store, logger: Logger = .disabled()) {
        self.store = store
        self.logger = logger
    }

    /// The instances the fallback share divides the rate by.
    public var knownInstances: Int { state.withLock { $0.instances } }

    public func lease(
        _ name: String, interval: Duration, want: Int, charge: Int, horizon: Duration, now: ContinuousClock.Instant
    ) -> SlotLease {
        let (countDue, storeResting, instances) = state.withLock { state in
            let countDue = state.countedAt.map { now - $0 >= Self.instanceCountInterval } ?? true
            if countDue { state.countedAt = now }
            return (countDue, state.failedAt.map { now - $0 < Self.retryInterval } ?? false, state.instances)
        }
        if !storeResting {
            do {
                if countDue {
                    let count = max(1, try store.instanceHeartbeats().count)
                    state.withLock { $0.instances = count }
                }
                let lease = try store.leaseRate(
                    name, interval: LocalRateSchedule.microseconds(interval, roundingUp: true), want: want,
                    charge: charge, horizon: LocalRateSchedule.microseconds(horizon),
                    now: Int64(Date().timeIntervalSince1970 * 1_000_000))
                // The store's offsets count from its answer: the slots start no earlier than it meant.
                return SlotLease(
                    granted: lease.granted, first: .now + .microseconds(lease.startsIn),
                    interval: .microseconds(lease.interval))
            } catch {
                state.withLock { $0.failedAt = now }
                logger.warning(
                    "the store cannot lease shared rate slots; using this instance's share of the rate",
                    metadata: ["rate": name, "instances": String(instances), "error": "\(error)"])
            }
        }
        return fallback.lease(
            name, interval: interval * instances, want: want, charge: charge, horizon: horizon, now: now)
    }
}
