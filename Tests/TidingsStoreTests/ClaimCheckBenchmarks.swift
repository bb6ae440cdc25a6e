import Foundation
import Testing
import TidingsModel
import TidingsStore
import TidingsStoreTesting

/// What the fence costs fan-out: one ``SendControlStore/checkClaims(_:worker:now:)`` of a claimed chunk (1,000
/// rows), which a worker runs once per chunk it claims and at least once a second, beside the claim itself.
///
/// Off by default: `TIDINGS_BENCH=1 swift test --filter ClaimCheckBenchmarks`. It prints figures and asserts
/// only that the work was done, never how fast.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["TIDINGS_BENCH"] != nil), .serialized)
struct ClaimCheckBenchmarks {
    static let now: Int64 = 1_800_000_000_000

    @Test(arguments: StoreBackend.allCases)
    func checkingAChunkOfClaims(_ backend: StoreBackend) throws {
        let store = try backend.makeStore()
        try store.createApp(AppRecord(id: "app_a", name: "app_a", bundleID: "com.example.a", createdAt: Self.now))
        let rows = 20_000
        try store.createMessage(
            MessageRecord(
                id: "m1", appID: "app_a", kind: .alert, topic: "com.example.a", payload: Array("{}".utf8),
                priority: 10, createdAt: Self.now),
            deliveries: (0..<rows).map {
                MessageDelivery(messageID: "m1", appID: "app_a", installationID: "i\($0)", token: "t\($0)")
            })
        var claimSeconds = 0.0
        var checkSeconds = 0.0
        var checked = 0
        while true {
            var started = Date()
            let chunk = try store.claimDeliveries(
                worker: "w", claim: DeliveryClaim(limit: 1_000), now: Self.now, leaseUntil: Self.now + 300_000)
            claimSeconds += Date().timeIntervalSince(started)
            if chunk.isEmpty { break }
            started = Date()
            let check = try store.checkClaims(chunk, worker: "w", now: Self.now)
            checkSeconds += Date().timeIntervalSince(started)
            #expect(check.held.allSatisfy { $0 })
            checked += chunk.count
        }
        #expect(checked == rows)
        let chunks = Double(rows / 1_000)
        print(
            "\(backend): claim of 1,000 rows \(String(format: "%.2f", claimSeconds / chunks * 1000)) ms; "
                + "check of 1,000 claims \(String(format: "%.2f", checkSeconds / chunks * 1000)) ms "
                + "(\(String(format: "%.1f", checkSeconds / Double(rows) * 1e6)) µs per delivery)")
    }
}
