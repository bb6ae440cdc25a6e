import Foundation
import Testing
import TidingsModel
import TidingsSQLite

@testable import TidingsStore

/// The overview's counts of sent and failed deliveries by day and by reason read the partial index of exactly
/// those rows (`message_deliveries_app_updated`), which a delivery enters only with its outcome: a delivery
/// waiting or in flight costs the index nothing (issue #39), and the overview still reads no other row.
@Suite struct DeliveryActivityQueryPlanTests {
    static func plan(_ store: SQLiteStore, _ sql: String) throws -> [String] {
        try store.database.read { db in
            // The day's length (?3) only in the query by day.
            let day: [SQLiteValue] = sql.contains("?3") ? [.integer(DailyActivity.dayMilliseconds)] : []
            return try db.query("EXPLAIN QUERY PLAN " + sql, [.text("app_a"), .integer(0)] + day) { $0.text(at: 3) }
        }
    }

    @Test(arguments: [SQLiteStore.dailySendsSQL, SQLiteStore.failuresByReasonSQL])
    func theOverviewReadsOnlyTheIndexOfDeliveriesWithAnOutcome(sql: String) throws {
        let store = try SQLiteStore(path: ":memory:", checkpointInterval: nil)
        let plan = try Self.plan(store, sql)
        #expect(plan.contains { $0.contains("USING INDEX message_deliveries_app_updated") }, "\(plan)")
        #expect(!plan.contains { $0.hasPrefix("SCAN message_deliveries") }, "\(plan)")
    }

    @Test func onlyDeliveriesWithAnOutcomeAreIndexedAndCounted() throws {
        let store = try SQLiteStore(path: ":memory:", checkpointInterval: nil)
        try store.createApp(AppRecord(id: "app_a", name: "a", bundleID: "com.example.a", createdAt: 0))
        let message = MessageRecord(
            id: "m1", appID: "app_a", state: .sending, kind: .alert, topic: "com.example.a",
            payload: Array("{}".utf8), priority: 10, createdAt: 0)
        try store.createMessage(
            message,
            deliveries: ["i1", "i2", "i3"].map {
                MessageDelivery(messageID: message.id, appID: "app_a", installationID: $0, token: "t-\($0)")
            })
        // `partial` is 1 for an index with a WHERE: rows outside it (waiting, claimed, skipped) get no entry.
        let partial = try store.database.read { db in
            try db.query("PRAGMA index_list(message_deliveries)") { ($0.text(at: 1), $0.int(at: 4)) }
        }
        #expect(partial.contains { $0 == ("message_deliveries_app_updated", 1) }, "\(partial)")
        #expect(try store.dailyActivity(appID: "app_a", since: 0).isEmpty)
        let claimed = try store.claimDeliveries(
            worker: "w", claim: DeliveryClaim(limit: 10), now: 1_000, leaseUntil: 100_000)
        #expect(claimed.count == 3)
        #expect(try store.dailyActivity(appID: "app_a", since: 0).isEmpty)
        let outcomes: [DeliveryResult] = [.sent, .failed(reason: "BadDeviceToken"), .skipped(reason: "no_consent")]
        let recorded = try store.completeDeliveries(
            zip(claimed, outcomes).map { DeliveryCompletion($0, result: $1) }, worker: "w", now: 2_000)
        #expect(recorded == [true, true, true])
        #expect(try store.failuresByReason(appID: "app_a", since: 0) == ["BadDeviceToken": 1])
        let days = try store.dailyActivity(appID: "app_a", since: 0)
        #expect(days.map(\.sent) == [1] && days.map(\.failed) == [1])
    }
}
