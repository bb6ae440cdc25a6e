import Foundation
import Testing
import TidingsModel
import TidingsStore
import TidingsStoreTesting

@testable import TidingsPostgres

/// A batch's outcomes written while another transaction changes one of its rows: the outcome is decided on the
/// row as that transaction left it, as the fence says, never lost because the row changed after the batch's
/// statement began.
@Suite struct PostgresOutcomeRaceTests {
    /// A store with the app `app_a` and the deliveries `i1` and `i2` of `msg_a`, claimed by `w/0` under epoch 3.
    func makeStore() throws -> PostgresStore {
        let store = try PostgresStore(configuration: try StoreBackend.postgresConfiguration())
        try store.createApp(AppRecord(id: "app_a", name: "a", bundleID: "com.example.a", createdAt: 1))
        try store.write { db in
            try db.run(
                """
                INSERT INTO message_deliveries (message_id, installation_id, app_id, token, token_type, environment,
                        state, updated_at, claimed_by, claim_expires_at, claim_epoch)
                SELECT 'msg_a', id, 'app_a', 't-' || id, 'apns', 'production', 'claimed', 0, 'w/0', 1, 3
                FROM unnest(ARRAY['i1', 'i2']) AS id
                """)
        }
        return store
    }

    /// Runs `change` on another connection in a transaction left open, then the outcomes `sent` of `i1` and
    /// `i2` for `w/0`, which wait for that transaction's lock on `i1`; commits it, and returns what the
    /// outcomes recorded and the rows' states and claims.
    func completeWhileChanging(_ store: PostgresStore, _ change: String) throws -> (recorded: [Bool], rows: String) {
        let other = try PostgresConnection(settings: store.pool.settings)
        try other.execute("BEGIN")
        try other.run(change)
        let completions = ["i1", "i2"].map {
            DeliveryCompletion(messageID: "msg_a", appID: "app_a", installationID: $0, result: .sent, claimEpoch: 3)
        }
        let finished = DispatchSemaphore(value: 0)
        let outcome = LockedBox<Result<[Bool], any Error>?>(nil)
        Thread {
            outcome.withLock { $0 = Result { try store.completeDeliveries(completions, worker: "w/0", now: 5) } }
            finished.signal()
        }.start()
        // The batch waits for the other transaction's lock on `i1`.
        #expect(finished.wait(timeout: .now() + .milliseconds(500)) == .timedOut)
        try other.execute("COMMIT")
        #expect(finished.wait(timeout: .now() + 10) == .success)
        let recorded = try #require(try outcome.withLock { $0 }?.get())
        let rows = try store.read { db in
            try db.query(
                """
                SELECT installation_id || ' ' || state || ' ' || coalesce(claimed_by, '-') FROM message_deliveries
                WHERE message_id = 'msg_a' ORDER BY installation_id
                """
            ) { $0.text(0) }
        }
        return (recorded, rows.joined(separator: ", "))
    }

    /// A cancel keeps the claim: the push already handed to the provider is recorded sent.
    @Test func aPushSentWhileItsMessageIsCancelledIsRecordedSent() throws {
        let store = try makeStore()
        let (recorded, rows) = try completeWhileChanging(
            store, "UPDATE message_deliveries SET state = 'cancelled' WHERE installation_id = 'i1'")
        #expect(recorded == [true, true])
        #expect(rows == "i1 sent -, i2 sent -")
    }

    /// A claim released meanwhile (its instance taken for dead) is no longer the worker's: nothing recorded.
    @Test func aPushWhoseClaimWasReleasedMeanwhileIsNotRecorded() throws {
        let store = try makeStore()
        let (recorded, rows) = try completeWhileChanging(
            store,
            """
            UPDATE message_deliveries SET state = 'pending', claimed_by = NULL, claim_epoch = claim_epoch + 1
            WHERE installation_id = 'i1'
            """)
        #expect(recorded == [false, true])
        #expect(rows == "i1 pending -, i2 sent -")
    }
}
