import Foundation
import Testing
import TidingsSQLite

@testable import TidingsStore

@Suite struct MessageSchemaTests {
    @Test func aVersionOneDatabaseUpgradesKeepingItsData() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        // A database as version 1 of the schema left it, with an app in it.
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent(SQLiteStore.fileName).path
        try SQLiteDatabase(path: path).read { db in
            try db.execute(SQLiteStore.migrations[0])
            try db.execute(
                """
                INSERT INTO apps (id, name, bundle_id, created_at) VALUES ('app_1', 'one', 'com.example.one', 1);
                PRAGMA user_version = 1
                """)
        }
        let upgraded = try SQLiteStore(path: path, checkpointInterval: nil)
        #expect(try upgraded.schemaVersion == SQLiteStore.latestSchemaVersion)
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
