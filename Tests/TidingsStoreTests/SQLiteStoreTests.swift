import Foundation
import Testing
import TidingsSQLite

@testable import TidingsStore

/// What only the SQLite backend has: its file, its schema version.
@Suite struct SQLiteStoreTests {
    @Test func reopeningKeepsDataAndTheSchemaVersion() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let store = try SQLiteStore(directory: directory)
            try store.createApp(AppRecord(id: "app_1", name: "one", bundleID: "com.example.one", createdAt: 1))
            #expect(try store.schemaVersion == SQLiteStore.latestSchemaVersion)
        }
        let reopened = try SQLiteStore(directory: directory)
        #expect(try reopened.schemaVersion == SQLiteStore.latestSchemaVersion)
        #expect(try reopened.apps().map(\.name) == ["one"])
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent(SQLiteStore.fileName).path))
    }

    @Test func aDatabaseFromANewerServerIsRefused() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try SQLiteStore(directory: directory)
        let path = directory.appendingPathComponent(SQLiteStore.fileName).path
        try SQLiteDatabase(path: path).read { try $0.execute("PRAGMA user_version = 99") }
        #expect(throws: StoreError.self) { try SQLiteStore(path: path) }
    }
}
