import Foundation
import Testing
import TidingsModel
import TidingsSQLite

@testable import TidingsStore

/// How SQLite reads the messages a claim looks at: through the partial index of the messages in flight, so a
/// claim costs what is sending now and not every message kept (journeys add thousands of one-push messages a
/// minute, and each claim used to scan and sort them all).
@Suite struct ClaimQueryPlanTests {
    static func plan(_ store: SQLiteStore, _ sql: String) throws -> [String] {
        try store.database.read { db in
            try db.query("EXPLAIN QUERY PLAN " + sql, [.integer(0), .integer(10), .integer(0)]) { $0.text(at: 3) }
        }
    }

    @Test func aClaimReadsTheMessagesInFlightThroughTheirIndexWithoutASort() throws {
        let store = try SQLiteStore(path: ":memory:", checkpointInterval: nil)
        let plan = try Self.plan(store, SQLiteStore.claimableMessagesSQL)
        #expect(plan.contains("SCAN m USING INDEX messages_in_flight"), "\(plan)")
        #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(plan)")
    }

    @Test func aClaimStillFindsMessagesInEveryStateInFlightAndNoOther() throws {
        let store = try SQLiteStore(path: ":memory:", checkpointInterval: nil)
        try store.createApp(AppRecord(id: "app_a", name: "a", bundleID: "com.example.a", createdAt: 0))
        let states: [MessageRecord.State] = [.queued, .resolving, .sending, .done, .cancelled, .scheduled]
        for (index, state) in states.enumerated() {
            let message = MessageRecord(
                id: "m_\(state.rawValue)", appID: "app_a", state: state, kind: .alert, topic: "t",
                payload: Array("{}".utf8), priority: 10, createdAt: Int64(index))
            try store.createMessage(
                message,
                deliveries: [MessageDelivery(messageID: message.id, appID: "app_a", installationID: "i1", token: "t")])
        }
        let found = try store.database.read { db in
            try db.query(SQLiteStore.claimableMessagesSQL, [.integer(0), .integer(10), .integer(0)]) { $0.text(at: 0) }
        }
        #expect(found == ["m_queued", "m_resolving", "m_sending"])
    }
}
