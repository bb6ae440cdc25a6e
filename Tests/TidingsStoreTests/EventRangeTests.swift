import Foundation
import Testing
import TidingsModel
import TidingsSQLite

@testable import TidingsStore

/// The SQLite store's ranges of `seq` (EventScope), through which events are found by installation, message
/// and campaign: what a batch writes, what retention leaves, and the upgrade from the indexes they replace.
@Suite struct EventRangeTests {
    static let january: Int64 = 1_736_467_200_000
    static let march: Int64 = 1_741_132_800_000

    func makeStore() throws -> SQLiteStore {
        let store = try SQLiteStore(path: ":memory:", checkpointInterval: nil)
        try store.createApp(AppRecord(id: "app_a", name: "a", bundleID: "com.example.a", createdAt: 0))
        return store
    }

    func event(installation: String = "i1", message: String? = "m1", campaign: String? = nil) -> TidingsEvent {
        TidingsEvent(
            eventID: UUID(), type: .open, occurredAt: Self.january, installationID: installation,
            messageID: message, campaignID: campaign)
    }

    func ranges(_ store: SQLiteStore) throws -> [String] {
        try store.database.read { db in
            try db.query("SELECT scope, scope_id, first_seq, last_seq FROM event_ranges ORDER BY rowid") { row in
                "\(row.text(at: 0)) \(row.text(at: 1)) \(row.int64(at: 2))-\(row.int64(at: 3))"
            }
        }
    }

    func messageCount(_ store: SQLiteStore, _ message: String = "m1") throws -> Int {
        try store.funnel(appID: "app_a", scope: .message(message)).eventsByType.values.reduce(0, +)
    }

    @Test func aBatchWritesOneRangePerValueOverTheSeqsItsNewEventsTook() throws {
        let store = try makeStore()
        let first = event(installation: "i1", campaign: "c1")
        _ = try store.insertEvents(appID: "app_a", events: [first], receivedAt: Self.january)
        let batch = [event(installation: "i2"), first, event(installation: "i1", message: nil), event()]
        #expect(
            try store.insertEvents(appID: "app_a", events: batch, receivedAt: Self.january) == [
                true, false, true, true,
            ])
        // The duplicate's campaign gets a range too (over rows that are not its own): harmless, as a lookup
        // keeps only the rows that match.
        #expect(
            try ranges(store) == [
                "installation i1 1-1", "message m1 1-1", "campaign c1 1-1",
                "installation i2 2-4", "message m1 2-4", "installation i1 2-4", "campaign c1 2-4",
            ])
        #expect(try store.funnel(appID: "app_a", scope: .campaign("c1")).eventsByType == ["open": 1])
        #expect(try messageCount(store) == 3)
        // A batch of duplicates only writes nothing.
        #expect(try store.insertEvents(appID: "app_a", events: [first], receivedAt: Self.january) == [false])
        #expect(try ranges(store).count == 7)
    }

    @Test func retentionDropsTheRangesOfRemovedEventsAndNewEventsAreCountedOnce() throws {
        let store = try makeStore()
        _ = try store.insertEvents(appID: "app_a", events: [event(), event()], receivedAt: Self.january)
        _ = try store.insertEvents(appID: "app_a", events: [event(installation: "i2")], receivedAt: Self.march)
        _ = try store.removeEvents(receivedBefore: Self.march)
        #expect(try ranges(store) == ["installation i2 3-3", "message m1 3-3"])
        // Once every event is gone SQLite hands out their seqs again; no stale range may cover the new rows.
        _ = try store.removeEvents(receivedBefore: Self.march + 1)
        #expect(try ranges(store).isEmpty)
        _ = try store.insertEvents(appID: "app_a", events: [event(), event(), event()], receivedAt: Self.march)
        #expect(try messageCount(store) == 3)
        #expect(try store.events(appID: "app_a", installationID: "i1", limit: 10).count == 3)
    }

    @Test func rangesPastTheNewestEventLeftAreCutWhenRetentionRemovesTheNewest() throws {
        let store = try makeStore()
        // The server's clock went back: the later batch was received "before" the earlier one.
        _ = try store.insertEvents(appID: "app_a", events: [event(), event()], receivedAt: Self.march)
        _ = try store.insertEvents(
            appID: "app_a", events: [event(), event(installation: "i2")], receivedAt: Self.january)
        _ = try store.insertEvents(appID: "app_a", events: [event(installation: "i3")], receivedAt: Self.january)
        #expect(try store.removeEvents(receivedBefore: Self.march).deletedEvents == 3)
        #expect(try ranges(store) == ["installation i1 1-2", "message m1 1-2"])
        // The seqs of the removed rows are handed out again, and counted once.
        _ = try store.insertEvents(
            appID: "app_a", events: [event(), event(installation: "i3")], receivedAt: Self.march)
        #expect(try messageCount(store) == 4)
        #expect(try store.events(appID: "app_a", installationID: "i3", limit: 10).count == 1)
    }

    @Test func aDatabaseWithTheIndexesUpgradesToRangesKeepingEveryLookup() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent(SQLiteStore.fileName).path
        let rangesVersion = SQLiteStore.migrations.firstIndex { $0.contains("CREATE TABLE event_ranges") }!
        // Events written by the schema before the ranges, straight into its tables.
        try SQLiteDatabase(path: path).read { db in
            for migration in SQLiteStore.migrations[..<rangesVersion] { try db.execute(migration) }
            try db.execute(
                """
                INSERT INTO apps (id, name, bundle_id, created_at) VALUES ('app_a', 'a', 'com.example.a', 1);
                INSERT INTO events (app_id, event_id, type, occurred_at, received_at, installation_id, platform,
                    message_id, campaign_id)
                VALUES ('app_a', 'e1', 'delivery', 1, 1, 'i1', 'ios', 'm1', 'c1'),
                    ('app_a', 'e2', 'open', 2, 2, 'i2', 'ios', 'm1', NULL),
                    ('app_a', 'e3', 'open', 3, 3, 'i1', 'ios', NULL, 'c1');
                PRAGMA user_version = \(rangesVersion)
                """)
        }
        let store = try SQLiteStore(path: path, checkpointInterval: nil)
        #expect(try store.schemaVersion == SQLiteStore.latestSchemaVersion)
        #expect(try store.funnel(appID: "app_a", scope: .message("m1")).eventsByType == ["delivery": 1, "open": 1])
        #expect(try store.funnel(appID: "app_a", scope: .campaign("c1")).uniqueInstallations == 1)
        #expect(try store.events(appID: "app_a", installationID: "i1", limit: 10).map(\.sequence) == [3, 1])
        let indexes = try store.database.read { db in
            try db.query("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events'") {
                $0.text(at: 0)
            }
        }
        // The ranges replace the three lookup indexes; audiences' event conditions read events_type_time.
        #expect(Set(indexes) == ["events_event_id", "events_user", "events_type_time"])
        // New batches go on from there.
        _ = try store.insertEvents(appID: "app_a", events: [event()], receivedAt: 4)
        #expect(try messageCount(store) == 3)
    }
}
