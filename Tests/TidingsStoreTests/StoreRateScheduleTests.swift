import Foundation
import Testing
import TidingsStore
import TidingsStoreTesting

/// Shared rates (``ClusterStore/leaseRate(_:interval:want:charge:horizon:now:)``), the same on every backend:
/// leases of one rate never share a slot, stop a horizon ahead, and rates are apart. PostgreSQL reads its own
/// clock, so the expectations allow for the time between calls.
@Suite struct StoreRateScheduleTests {
    /// 100 a second, reserved at most 100 ms ahead.
    static let interval: Int64 = 10_000
    static let horizon: Int64 = 100_000

    func lease(_ store: any Store, _ name: String = "message/m1", want: Int, charge: Int = 0) throws -> RateLease {
        try store.leaseRate(
            name, interval: Self.interval, want: want, charge: charge, horizon: Self.horizon,
            now: Int64(Date().timeIntervalSince1970 * 1_000_000))
    }

    @Test(arguments: StoreBackend.allCases)
    func leasesOfOneRateFollowOneAnotherUpToTheHorizon(_ backend: StoreBackend) throws {
        let store = try backend.makeStore()
        let first = try lease(store, want: 5)
        #expect(first.granted == 5)
        #expect(first.startsIn < 20_000, "an idle rate starts now")
        let second = try lease(store, want: 5)
        #expect(second.granted == 5)
        #expect(
            (30_000...50_000).contains(second.startsIn),
            "the second batch starts where the first ends (50 ms, less the time between): \(second.startsIn)")
        // Up to the horizon, then nothing until the schedule comes back within it.
        var granted = 0
        var refusal: RateLease?
        for _ in 0..<20 {
            let next = try lease(store, want: 5)
            granted += next.granted
            if next.granted == 0 {
                refusal = next
                break
            }
        }
        #expect(granted <= 6, "no more than the horizon ahead: \(granted) more")
        let refused = try #require(refusal)
        #expect(refused.startsIn > 0 && refused.startsIn <= Self.interval + 20_000)

        let other = try lease(store, "app/app_a", want: 5)
        #expect(other.granted == 5 && other.startsIn < 20_000, "another rate has its own schedule")
    }

    @Test(arguments: StoreBackend.allCases)
    func chargedSlotsPushTheScheduleOn(_ backend: StoreBackend) throws {
        let store = try backend.makeStore()
        _ = try lease(store, want: 0, charge: 5)
        let after = try lease(store, want: 1)
        #expect((30_000...50_000).contains(after.startsIn), "five slots were already used: \(after.startsIn)")
    }
}
