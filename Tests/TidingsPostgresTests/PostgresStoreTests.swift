import Foundation
import Testing
import TidingsModel
import TidingsStore
import TidingsStoreTesting

@testable import TidingsPostgres

/// What only the PostgreSQL backend has: migrations under a lock, partitioned events, the pool, claims that
/// skip locked rows. The behaviour every backend shares is the store suite's (`StoreTests`).
@Suite struct PostgresStoreTests {
    static let now: Int64 = 1_800_000_000_000

    /// A store on a new database, and that database's name.
    func makeStore(_ change: (inout PostgresStore.Configuration) -> Void = { _ in }) throws -> (
        store: PostgresStore, database: String
    ) {
        var configuration = try StoreBackend.postgresConfiguration()
        change(&configuration)
        let store = try PostgresStore(configuration: configuration)
        try store.createApp(AppRecord(id: "app_a", name: "a", bundleID: "com.example.a", createdAt: Self.now))
        return (store, configuration.connectionString.components(separatedBy: "dbname=").last ?? "")
    }

    var cluster: PostgresTestCluster { get throws { try PostgresTestCluster.shared.get() } }

    func event(at occurredAt: Int64 = now, id: UUID = UUID()) -> TidingsEvent {
        TidingsEvent(eventID: id, type: .open, occurredAt: occurredAt, installationID: "i1", messageID: "m1")
    }

    @Test func instancesStartingTogetherMigrateOnceAndANewerSchemaIsRefused() throws {
        let configuration = try StoreBackend.postgresConfiguration()
        let opened = LockedBox<[Result<Int, any Error>]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            let result = Result { try PostgresStore(configuration: configuration).schemaVersion }
            opened.withLock { $0.append(result) }
        }
        let versions = try opened.withLock { try $0.map { try $0.get() } }
        #expect(versions == Array(repeating: PostgresStore.migrations.count, count: 4))
        let database = configuration.connectionString.components(separatedBy: "dbname=").last ?? ""
        // One row per migration: each was applied once, not once per instance.
        #expect(
            try cluster.psql("SELECT count(*) FROM schema_version", database: database)
                == "\(PostgresStore.migrations.count)\n")

        try cluster.psql("INSERT INTO schema_version (version) VALUES (99)", database: database)
        let refused = #expect(throws: StoreError.self) { try PostgresStore(configuration: configuration) }
        #expect(refused?.message.contains("schema version 99") == true)
    }

    @Test func eventsGoToTheirMonthsPartitionAndStayUniqueAcrossPartitions() throws {
        let (store, database) = try makeStore()
        let january = Self.now  // 2027-01-15
        let march = january + 60 * 86_400_000
        let first = event()
        #expect(try store.insertEvents(appID: "app_a", events: [first], receivedAt: january) == [true])
        #expect(try store.insertEvents(appID: "app_a", events: [first, event()], receivedAt: march) == [false, true])
        let partitions = try cluster.psql(
            "SELECT tableoid::regclass, count(*) FROM events GROUP BY 1 ORDER BY tableoid::regclass::text",
            database: database)
        #expect(partitions == "events_p202701|1\nevents_p202703|1\n")
        #expect(try store.events(appID: "app_a", query: .init()).events.map(\.receivedAt) == [january, march])
    }

    /// A batch is one statement: its events are stored in the batch's order, and a repeated id, of an event
    /// stored before or of one earlier in the same batch, stores nothing and answers false at its position.
    @Test func aBatchKeepsItsOrderAndItsDuplicates() throws {
        let (store, _) = try makeStore()
        let earlier = event(at: Self.now - 1)
        #expect(try store.insertEvents(appID: "app_a", events: [earlier], receivedAt: Self.now) == [true])
        let count = 650
        // Ids descending while positions ascend, so the batch's order cannot come from the ids.
        let events = (0..<count).map { index in
            event(
                at: Self.now + Int64(index),
                id: UUID(uuidString: String(format: "00000000-0000-4000-8000-%012x", count - index))!)
        }
        let batch = [events[0]] + events + events.prefix(10) + [earlier]
        let inserted = try store.insertEvents(appID: "app_a", events: batch, receivedAt: Self.now)
        #expect(
            inserted == [true] + Array(repeating: false, count: 1) + Array(repeating: true, count: count - 1)
                + Array(repeating: false, count: 11))
        let stored = try store.events(appID: "app_a", query: .init(limit: count + 10)).events
        #expect(stored.map(\.event) == [earlier] + events)
    }

    /// The index on `tidings_version_key(app_version)` and the audiences that compare versions rely on the
    /// database computing exactly what `VersionKey` computes in Swift (SQLite's function).
    @Test func theDatabasesVersionKeyIsSwiftsVersionKey() throws {
        let (store, _) = try makeStore()
        let versions = [
            "0", "00", "0.0.1", "0.1", "1", "1.0", "1.0.0", "1.0.5", "1.2", "1.10", "2.3.", "02.3", "2.3.1-beta",
            "7 (42)", "10", "100.0", "2.0.0.1", "", "beta", "v2", ".1", "1..2", "1.2.3.4.5.6.7.8",
            String(repeating: "9", count: 30), String(repeating: "9", count: 31),
            "1." + String(repeating: "0", count: 40),
            "1.000000000000000000000000000000000000007", "５",
        ]
        try store.pool.withConnection { db in
            for version in versions {
                let key = try db.query("SELECT tidings_version_key($1)", [.text(version)]) { $0.optionalText(0) }
                #expect(key == [VersionKey.key(version)], "\(version)")
            }
            let none = try db.query("SELECT tidings_version_key(NULL)") { $0.optionalText(0) }
            #expect(none == [nil])
        }
    }

    /// Audiences by app version compare the key tidingsd stores with each installation; rows written the way an
    /// earlier tidingsd writes them (no key) get theirs from the schema's triggers, and rows written before the
    /// migration get theirs from it.
    @Test func theStoredAppVersionKeyFollowsEveryWrite() throws {
        let configuration = try StoreBackend.postgresConfiguration()
        let settings = PostgresConnection.Settings(
            connectionString: configuration.connectionString, applicationName: "test",
            connectTimeout: .seconds(5), statementTimeout: .seconds(15), lockTimeout: .seconds(5),
            idleInTransactionTimeout: .seconds(60))
        // The schema as the version before, with an installation in it.
        let before = try PostgresConnection(settings: settings)
        try before.execute(
            "CREATE TABLE schema_version (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())")
        for (version, migration) in PostgresStore.migrations.dropLast().enumerated() {
            try before.execute(migration)
            _ = try before.run("INSERT INTO schema_version (version) VALUES ($1)", [.integer(Int64(version + 1))])
        }
        try before.execute(
            """
            INSERT INTO apps (id, name, bundle_id, created_at) VALUES ('app_a', 'a', 'com.example.a', 0);
            INSERT INTO installations (app_id, installation_id, platform, app_version, created_at, updated_at)
                VALUES ('app_a', 'migrated', 'ios', '2.10.1', 0, 0);
            """)
        let store = try PostgresStore(configuration: configuration)
        for (id, version) in [("new", "2.9"), ("unversioned", nil), ("beta", "beta")] {
            var update = InstallationUpdate()
            update.platform = .set("ios")
            if let version { update.appVersion = .set(version) }
            _ = try store.upsertInstallation(appID: "app_a", installationID: id, update: update, now: Self.now)
        }
        // An earlier tidingsd's writes: its columns, without the key.
        try before.execute(
            """
            INSERT INTO installations (app_id, installation_id, platform, app_version, created_at, updated_at)
                VALUES ('app_a', 'old-insert', 'ios', '3.0', 0, 0), ('app_a', 'old-update', 'ios', '1.0', 0, 0);
            INSERT INTO installations (app_id, installation_id, platform, app_version, created_at, updated_at)
                VALUES ('app_a', 'old-update', 'ios', '2.10', 0, 0)
                ON CONFLICT (app_id, installation_id) DO UPDATE SET app_version = excluded.app_version;
            """)
        let stored = try store.pool.withConnection { db in
            try db.query("SELECT installation_id, app_version, app_version_key FROM installations ORDER BY 1") {
                ($0.text(0), $0.optionalText(1), $0.optionalText(2))
            }
        }
        for (id, version, storedKey) in stored {
            #expect(storedKey == version.flatMap(VersionKey.key), "\(id) \(version ?? "nil")")
        }
        #expect(stored.count == 6)
        // A change of version by this tidingsd moves the key; one to no version clears it.
        var downgrade = InstallationUpdate()
        downgrade.appVersion = .set("2.9.9")
        _ = try store.upsertInstallation(appID: "app_a", installationID: "migrated", update: downgrade, now: Self.now)
        var cleared = InstallationUpdate()
        cleared.appVersion = .set(nil)
        _ = try store.upsertInstallation(appID: "app_a", installationID: "old-insert", update: cleared, now: Self.now)
        let atLeast = try store.countInstallations(
            appID: "app_a", audience: try AudienceExpression.parse("app_version >= 2.10"), now: Self.now)
        #expect(atLeast == 1, "only old-update (2.10) is 2.10 or later now")
        let below = try store.countInstallations(
            appID: "app_a", audience: try AudienceExpression.parse("app_version < 2.10"), now: Self.now)
        #expect(below == 2, "new (2.9) and migrated (2.9.9)")
    }

    @Test func theUpsertGroupsAlwaysLeaveAConnectionToTheOtherCalls() throws {
        let (small, _) = try makeStore { $0.maximumConnections = 2 }
        #expect(small.upserts.maximumGroups == 1)
        let (large, _) = try makeStore { $0.maximumConnections = 24 }
        #expect(large.upserts.maximumGroups == large.configuration.concurrentUpsertGroups)
        // A pool of two under concurrent upserts, event batches and reads: nothing waits past its timeout.
        let (store, _) = try makeStore {
            $0.maximumConnections = 2
            $0.acquireTimeout = .seconds(5)
        }
        let failures = LockedBox<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 24) { index in
            do {
                switch index % 3 {
                case 0:
                    _ = try store.upsertInstallation(
                        appID: "app_a", installationID: "pool-\(index)", now: Self.now
                    ) { _ in InstallationUpdate() }
                case 1:
                    let event = TidingsEvent(type: .open, occurredAt: Self.now, installationID: "pool-\(index)")
                    _ = try store.insertEvents(appID: "app_a", events: [event], receivedAt: Self.now)
                default:
                    _ = try store.installations(appID: "app_a", query: InstallationQuery())
                }
            } catch {
                failures.withLock { $0.append("\(index): \(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        #expect(try store.installations(appID: "app_a", query: InstallationQuery()).count == 8)
    }

    @Test func aCallThatCannotGetAConnectionInTimeThrowsATypedError() throws {
        let (store, _) = try makeStore {
            $0.maximumConnections = 1
            $0.acquireTimeout = .milliseconds(200)
        }
        try store.pool.withConnection { _ in
            let error = #expect(throws: PostgresError.self) { try store.apps() }
            #expect(error?.code == .connectionUnavailable)
            #expect(error?.message.contains("all 1 are busy") == true)
        }
        #expect(try store.apps().map(\.id) == ["app_a"])
    }

    @Test func anUnreachableServerThrowsATypedErrorInsteadOfHanging() throws {
        var configuration = PostgresStore.Configuration(
            connectionString: "host=\(try cluster.directory.path) port=1 user=postgres dbname=postgres")
        configuration.acquireTimeout = .milliseconds(300)
        let error = #expect(throws: PostgresError.self) { try PostgresStore(configuration: configuration) }
        #expect(error?.code == .connectionUnavailable)
    }

    @Test func aCallToAServerThatStopsAnsweringEndsInATimeoutAndTheConnectionIsReplaced() throws {
        let (store, _) = try makeStore { $0.statementTimeout = .milliseconds(100) }
        #expect(store.pool.openConnections == 1)
        // The one connection's server process stops dead: no answer, no error, no closed socket.
        let backend = try #require(try store.pool.withConnection { try $0.scalar("SELECT pg_backend_pid()") })
        kill(pid_t(backend), SIGSTOP)
        defer { kill(pid_t(backend), SIGCONT) }
        let error = #expect(throws: PostgresError.self) { try store.apps() }
        #expect(error?.code == .timeout)
        kill(pid_t(backend), SIGCONT)
        #expect(try store.apps().map(\.id) == ["app_a"])
    }

    @Test func connectionsTheServerClosesAreReplacedWithoutFailingACall() throws {
        let (store, database) = try makeStore()
        // Two connections in the pool.
        try store.pool.withConnection { _ in _ = try store.apps() }
        #expect(store.pool.openConnections == 2)
        try cluster.psql(
            """
            SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
            WHERE datname = '\(database)' AND pid <> pg_backend_pid()
            """, database: "postgres")
        #expect(try store.apps().map(\.id) == ["app_a"])
        try store.createApp(AppRecord(id: "app_b", name: "b", bundleID: "com.example.b", createdAt: Self.now + 1))
        #expect(try store.apps().map(\.id) == ["app_a", "app_b"])
    }

    @Test func claimsPassOverRowsAnotherTransactionHoldsInsteadOfWaiting() throws {
        // Waiting for the held rows would end in a lock timeout error, not a claim.
        let (store, _) = try makeStore { $0.lockTimeout = .milliseconds(500) }
        let message = MessageRecord(
            id: "m1", appID: "app_a", kind: .alert, topic: "com.example.a", payload: Array("{}".utf8), priority: 10,
            createdAt: Self.now)
        try store.createMessage(
            message,
            deliveries: (0..<4).map {
                MessageDelivery(messageID: "m1", appID: "app_a", installationID: "i\($0)", token: "t\($0)")
            })
        // Another instance is in the middle of claiming i0 and i1.
        let other = try PostgresConnection(settings: store.pool.settings)
        try other.execute("BEGIN")
        _ = try other.query(
            "SELECT 1 FROM message_deliveries WHERE installation_id IN ('i0', 'i1') FOR UPDATE", row: { _ in () })
        let first = try store.claimDeliveries(worker: "w1", limit: 10, now: Self.now, leaseUntil: Self.now + 60_000)
        #expect(first.map(\.installationID) == ["i2", "i3"])
        try other.execute("ROLLBACK")
        let second = try store.claimDeliveries(worker: "w2", limit: 10, now: Self.now, leaseUntil: Self.now + 60_000)
        #expect(second.map(\.installationID) == ["i0", "i1"])
        #expect(try store.message(appID: "app_a", messageID: "m1")?.state == .sending)
        #expect(try store.messageCounts(messageID: "m1").inFlight == 4)
    }
}
