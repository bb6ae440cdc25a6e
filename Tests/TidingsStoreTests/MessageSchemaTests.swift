import Foundation
import Testing
import TidingsSQLite
import TidingsStore

@Suite struct MessageSchemaTests {
    @Test func aVersionOneDatabaseUpgradesKeepingItsData() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let store = try SQLiteStore(directory: directory, checkpointInterval: nil)
            try store.createApp(AppRecord(id: "app_1", name: "one", bundleID: "com.example.one", createdAt: 1))
        }
        // Turn it back into what version 1 left behind.
        let path = directory.appendingPathComponent(SQLiteStore.fileName).path
        try SQLiteDatabase(path: path).read { db in
            try db.execute(
                """
                DROP TABLE message_deliveries; DROP TABLE messages;
                ALTER TABLE installations DROP COLUMN token_mismatch;
                ALTER TABLE installations DROP COLUMN token_mismatch_at;
                PRAGMA user_version = 1
                """)
        }
        let upgraded = try SQLiteStore(path: path, checkpointInterval: nil)
        #expect(try upgraded.schemaVersion == 2)
        #expect(try upgraded.apps().map(\.name) == ["one"])
        try upgraded.createMessage(
            MessageRecord(
                id: "m1", appID: "app_1", kind: .alert, topic: "com.example.one", payload: Array("{}".utf8),
                priority: 10, createdAt: 1),
            deliveries: [MessageDelivery(messageID: "m1", appID: "app_1", installationID: "i1", token: "aa")])
        #expect(try upgraded.messageCounts(messageID: "m1").queued == 1)
        #expect(throws: StoreError.self) {
            try upgraded.createMessage(
                MessageRecord(
                    id: "m1", appID: "app_1", kind: .alert, topic: "t", payload: [], priority: 10, createdAt: 1),
                deliveries: [])
        }
    }
}
