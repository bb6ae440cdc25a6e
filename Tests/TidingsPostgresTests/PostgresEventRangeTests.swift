import Foundation
import Testing
import TidingsModel
import TidingsStore
import TidingsStoreTesting

@testable import TidingsPostgres

/// The PostgreSQL store's ranges of `seq` (EventScope), through which events are found by installation, message
/// and campaign: each batch numbers its events from one `nextval`, so concurrent batches cannot interleave inside
/// a range; larger batches take a block each; retention drops ranges with their month; the upgrade from the
/// indexes they replace keeps every lookup.
@Suite struct PostgresEventRangeTests {
    static let january: Int64 = 1_800_000_000_000  // 2027-01-15
    static let march = january + 60 * 86_400_000

    func makeStore() throws -> (store: PostgresStore, database: String) {
        let configuration = try StoreBackend.postgresConfiguration()
        let store = try PostgresStore(configuration: configuration)
        try store.createApp(AppRecord(id: "app_a", name: "a", bundleID: "com.example.a", createdAt: Self.january))
        return (store, configuration.connectionString.components(separatedBy: "dbname=").last ?? "")
    }

    var cluster: PostgresTestCluster { get throws { try PostgresTestCluster.shared.get() } }

    func event(installation: String = "i1", message: String? = "m1", campaign: String? = nil) -> TidingsEvent {
        TidingsEvent(
            eventID: UUID(), type: .open, occurredAt: Self.january, installationID: installation,
            messageID: message, campaignID: campaign)
    }

    func messageCount(_ store: PostgresStore, _ message: String = "m1") throws -> Int {
        try store.funnel(appID: "app_a", scope: .message(message)).eventsByType.values.reduce(0, +)
    }

    /// Pairs of ranges of one value whose spans of `seq` overlap: a lookup through them would count the events
    /// of the overlap twice.
    func overlappingRanges(_ database: String) throws -> String {
        try cluster.psql(
            """
            SELECT count(*) FROM event_ranges a JOIN event_ranges b ON a.app_id = b.app_id AND a.scope = b.scope
                AND a.scope_id = b.scope_id AND a.first_seq < b.first_seq AND b.first_seq <= a.last_seq
            """, database: database)
    }

    @Test func concurrentBatchesTakeDisjointSpansAndEveryEventIsFoundOnce() throws {
        let (store, database) = try makeStore()
        let writers = 4
        let batches = 15
        let size = 40
        let failures = LockedBox<[String]>([])
        DispatchQueue.concurrentPerform(iterations: writers) { writer in
            for _ in 0..<batches {
                // Every writer's batches share an installation, a message and a campaign, and each has its own
                // installation too: all four values' ranges come from batches written at the same time.
                let events = (0..<size).map { index in
                    event(installation: index.isMultiple(of: 2) ? "shared" : "w\(writer)", campaign: "c1")
                }
                do {
                    let inserted = try store.insertEvents(appID: "app_a", events: events, receivedAt: Self.january)
                    if inserted != Array(repeating: true, count: size) {
                        failures.withLock { $0.append("\(inserted)") }
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        let total = writers * batches * size
        #expect(try messageCount(store) == total)
        #expect(try store.funnel(appID: "app_a", scope: .campaign("c1")).eventsByType["open"] == total)
        #expect(try store.events(appID: "app_a", installationID: "shared", limit: total).count == total / 2)
        #expect(try store.events(appID: "app_a", installationID: "w0", limit: total).count == batches * size / 2)
        let page = try store.events(appID: "app_a", query: EventQuery(messageID: "m1", limit: total + 1)).events
        #expect(Set(page.map(\.event.eventID)).count == total)
        #expect(page.map(\.sequence) == page.map(\.sequence).sorted())
        #expect(try overlappingRanges(database) == "0\n")
        // Each batch's events are consecutive: its message's range spans exactly its events.
        #expect(
            try cluster.psql(
                "SELECT DISTINCT last_seq - first_seq + 1 FROM event_ranges WHERE scope = 'message'", database: database
            )
                == "\(size)\n")
    }

    /// A batch larger than a block of `seq`s is written as several statements in its one transaction; a
    /// duplicate in a later part of an event in an earlier part still stores nothing.
    @Test func aBatchLargerThanABlockIsNumberedABlockAtATime() throws {
        let (store, database) = try makeStore()
        let count = PostgresStore.eventSequenceBlock * 2 + 100
        let events = (0..<count).map { event(installation: "i\($0 % 3)") }
        let batch = events + [events[5], events[count - 1]]
        let inserted = try store.insertEvents(appID: "app_a", events: batch, receivedAt: Self.january)
        #expect(inserted == Array(repeating: true, count: count) + [false, false])
        #expect(try messageCount(store) == count)
        #expect(try store.events(appID: "app_a", installationID: "i1", limit: count).count == count / 3)
        #expect(try overlappingRanges(database) == "0\n")
        #expect(
            try cluster.psql("SELECT count(*) FROM event_ranges WHERE scope = 'message'", database: database) == "3\n")
        // The timeline is newest first across the blocks.
        let timeline = try store.events(appID: "app_a", installationID: "i2", limit: 3).map(\.event.eventID)
        #expect(timeline == [events[count - 1], events[count - 4], events[count - 7]].map(\.eventID))
    }

    @Test func retentionDropsTheRangesOfTheMonthsItRemoves() throws {
        let (store, database) = try makeStore()
        _ = try store.insertEvents(appID: "app_a", events: [event(), event()], receivedAt: Self.january)
        _ = try store.insertEvents(appID: "app_a", events: [event(installation: "i2")], receivedAt: Self.march)
        _ = try store.removeEvents(receivedBefore: Self.march)
        #expect(
            try cluster.psql("SELECT scope, scope_id FROM event_ranges ORDER BY 1, 2", database: database)
                == "installation|i2\nmessage|m1\n")
        #expect(try messageCount(store) == 1)
        #expect(try store.events(appID: "app_a", installationID: "i1", limit: 10).isEmpty)
    }

    @Test func aDatabaseWithTheIndexesUpgradesToRangesKeepingEveryLookup() throws {
        let configuration = try StoreBackend.postgresConfiguration()
        let database = configuration.connectionString.components(separatedBy: "dbname=").last ?? ""
        let rangesVersion = PostgresStore.migrations.firstIndex { $0.contains("CREATE TABLE event_ranges") }!
        // Events written by the schema before the ranges, with the sequence of then.
        try cluster.psql(
            "CREATE TABLE schema_version (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
            database: database)
        for (version, migration) in PostgresStore.migrations[..<rangesVersion].enumerated() {
            try cluster.psql(
                migration + "; INSERT INTO schema_version (version) VALUES (\(version + 1))", database: database)
        }
        try cluster.psql(
            """
            INSERT INTO apps (id, name, bundle_id, created_at) VALUES ('app_a', 'a', 'com.example.a', 1);
            INSERT INTO installations (app_id, installation_id, platform, created_at, updated_at)
                VALUES ('app_a', 'i1', 'ios', 0, 0), ('app_a', 'i2', 'ios', 0, 0), ('app_a', 'i3', 'ios', 0, 0);
            INSERT INTO events (app_id, event_id, type, occurred_at, received_at, installation_id, platform,
                message_id, campaign_id)
            VALUES ('app_a', 'e1', 'delivery', 1, \(Self.january), 'i1', 'ios', 'm1', 'c1'),
                ('app_a', 'e2', 'open', 2, \(Self.january), 'i2', 'ios', 'm1', NULL),
                ('app_a', 'e3', 'open', 3, \(Self.january), 'i1', 'ios', NULL, 'c1');
            """, database: database)
        let store = try PostgresStore(configuration: configuration)
        #expect(try store.schemaVersion == PostgresStore.migrations.count)
        #expect(try store.funnel(appID: "app_a", scope: .message("m1")).eventsByType == ["delivery": 1, "open": 1])
        #expect(try store.funnel(appID: "app_a", scope: .campaign("c1")).uniqueInstallations == 1)
        #expect(try store.events(appID: "app_a", installationID: "i1", limit: 10).map(\.sequence) == [3, 1])
        #expect(
            try cluster.psql(
                """
                SELECT indexname FROM pg_indexes WHERE tablename = 'events'
                    AND indexname IN ('events_installation', 'events_campaign', 'events_message')
                """, database: database) == "")
        #expect(
            try cluster.psql(
                "SELECT increment_by FROM pg_sequences WHERE sequencename = 'events_seq'", database: database)
                == "\(PostgresStore.eventSequenceBlock)\n")
        // New batches number after the old events and are found with them.
        _ = try store.insertEvents(appID: "app_a", events: [event(), event()], receivedAt: Self.january)
        #expect(try messageCount(store) == 4)
        let sequences = try store.events(appID: "app_a", installationID: "i1", limit: 10).map(\.sequence)
        #expect(sequences.count == 4 && sequences[0] == sequences[1] + 1 && sequences[1] > 3)
        // The complement of an event condition reads each installation's ranges: old ones and new ones.
        func count(_ expression: String) throws -> Int {
            try store.countInstallations(
                appID: "app_a", audience: try AudienceExpression.parse(expression), now: Self.january)
        }
        #expect(try count("not event open") == 1, "i3 opened nothing")
        #expect(try count("event open count < 3") == 2, "i2 opened once, i3 never; i1 three times")
        #expect(try count("not event delivery") == 2, "only i1 has a delivery, from before the upgrade")
    }
}
