import Foundation
import Testing
import TidingsModel
import TidingsStore
import TidingsStoreTesting

@testable import TidingsPostgres

/// The statements of a campaign's send, planned where PostgreSQL's estimates mislead it: under statistics taken
/// before the app's installations or the message's deliveries existed (a campaign sent within a minute of an
/// import, before autovacuum analyzes again) it takes the app or the message for a row or two, and plans that
/// read all of them look as cheap as the look-ups. Each statement must keep to its look-up, planned for its
/// parameters and generically.
///
/// Serialized: the plans logged are read from the cluster's one log, where another test's plans running at the
/// same time would be counted with a test's own.
@Suite(.serialized) struct PostgresPlansUnderOldStatisticsTests {
    static let now: Int64 = 1_800_000_000_000

    /// A store on a database of its own, with the app `app_a`; the test cluster; the database's name.
    func makeEmptyStore(_ configuration: PostgresStore.Configuration) throws
        -> (PostgresStore, PostgresTestCluster, String)
    {
        let database = configuration.connectionString.components(separatedBy: "dbname=").last ?? ""
        let store = try PostgresStore(configuration: configuration)
        try store.createApp(AppRecord(id: "app_a", name: "a", bundleID: "com.example.a", createdAt: Self.now))
        return (store, try PostgresTestCluster.shared.get(), database)
    }

    /// A store whose statistics were taken while only another app had installations and another message
    /// deliveries, and which then got 5,000 installations of `app_a` and as many pending deliveries of
    /// `msg_a`, written in no particular order, as an import writes them.
    func makeStore() throws -> (PostgresStore, PostgresTestCluster, String) {
        let (store, cluster, database) = try makeEmptyStore(try StoreBackend.postgresConfiguration())
        try cluster.psql(
            """
            ALTER TABLE installations SET (autovacuum_enabled = false);
            ALTER TABLE message_deliveries SET (autovacuum_enabled = false);
            INSERT INTO installations (app_id, installation_id, platform, created_at, updated_at)
                SELECT 'app_other', 'other-' || g, 'ios', 0, 0 FROM generate_series(1, 100) g;
            INSERT INTO message_deliveries (message_id, installation_id, app_id, token, token_type, environment,
                    state, updated_at)
                SELECT 'msg_other', 'other-' || g, 'app_other', 't', 'apns', 'production', 'sent', 0
                FROM generate_series(1, 100) g;
            ANALYZE installations;
            ANALYZE message_deliveries;
            INSERT INTO installations (app_id, installation_id, platform, app_version, app_version_key, created_at,
                    updated_at)
                SELECT 'app_a', 'inst-' || lpad(g::text, 6, '0'), 'ios', '1.0', '1.0', 0, 0
                FROM generate_series(1, 5000) g ORDER BY random();
            INSERT INTO message_deliveries (message_id, installation_id, app_id, token, token_type, environment,
                    state, updated_at)
                SELECT 'msg_a', 'inst-' || lpad(g::text, 6, '0'), 'app_a', 't', 'apns', 'production', 'pending', 0
                FROM generate_series(1, 5000) g ORDER BY random();
            """, database: database)
        return (store, cluster, database)
    }

    /// The plan of prepared `sql` for `arguments`, custom then generic, after `settings` in the same transaction.
    func plans(
        _ sql: String, _ arguments: String, settings: String = "", in database: String, _ cluster: PostgresTestCluster
    )
        throws -> (custom: String, generic: String)
    {
        let output = try cluster.psql(
            """
            BEGIN;
            \(settings);
            PREPARE statement AS \(sql);
            SET LOCAL plan_cache_mode = force_custom_plan;
            EXPLAIN EXECUTE statement(\(arguments));
            SELECT '----';
            SET LOCAL plan_cache_mode = force_generic_plan;
            EXPLAIN EXECUTE statement(\(arguments));
            ROLLBACK;
            """, database: database)
        let parts = output.components(separatedBy: "----\n")
        return (parts.first ?? "", parts.count > 1 ? parts[1] : "")
    }

    /// Planner costs under which reading a page through an index looks dear beside reading the table.
    static let adverse = "SET LOCAL random_page_cost = 100"

    /// Another store on `database`, whose connections plan under ``adverse`` costs and write every plan they run
    /// to the server's log (`auto_explain`): the plans of what the store itself runs, guard and all, rather than
    /// of its SQL run by hand.
    func storeLoggingItsPlans(_ cluster: PostgresTestCluster, _ database: String) throws -> PostgresStore {
        try cluster.psql(
            """
            ALTER DATABASE \(database) SET session_preload_libraries = 'auto_explain';
            ALTER DATABASE \(database) SET auto_explain.log_min_duration = 0;
            ALTER DATABASE \(database) SET random_page_cost = 100;
            """, database: database)
        return try PostgresStore(
            configuration: .init(connectionString: cluster.connectionString(database: database)))
    }

    /// The plans logged while `body` ran of the statements whose text has every one of `markers`. Only the
    /// database of ``storeLoggingItsPlans(_:_:)`` logs plans, and a server writes each entry whole.
    func plansLogged(
        _ cluster: PostgresTestCluster, of markers: [String], during body: () throws -> Void
    ) throws -> [String] {
        let log = cluster.directory.appendingPathComponent("postgres.log")
        let start = try FileManager.default.attributesOfItem(atPath: log.path)[.size] as? UInt64 ?? 0
        try body()
        let handle = try FileHandle(forReadingFrom: log)
        defer { try? handle.close() }
        try handle.seek(toOffset: start)
        let written = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
        return written.components(separatedBy: "plan:").dropFirst().filter { entry in
            let text = entry.components(separatedBy: "duration:").first ?? entry
            return markers.allSatisfy(text.contains)
        }
    }

    /// Expects each of `plans` to find the rows of `table` through `index`, by `key`: never a filter on the key
    /// (which walks every row the index's other conditions match), never a read of the table or a bitmap of it.
    func expectLookUps(_ plans: [String], in table: String, through index: String, byKey key: String) {
        for plan in plans {
            #expect(plan.contains("Scan using \(index) on \(table)"), "\(plan)")
            #expect(!plan.split(separator: "\n").contains { $0.contains("Filter:") && $0.contains(key) }, "\(plan)")
            #expect(!plan.contains("Seq Scan on \(table)") && !plan.contains("Bitmap Heap Scan on \(table)"), "\(plan)")
        }
    }

    /// The page after `inst-002000` that `read` asks of a store logging its plans: the right rows, read by the
    /// guarded plan, the walk of the key without a sort, in the store's own transaction.
    func expectTheStoresPageWalksTheKey(
        _ cluster: PostgresTestCluster, _ database: String, read: (PostgresStore) throws -> [Installation]
    ) throws {
        let logging = try storeLoggingItsPlans(cluster, database)
        let logged = try plansLogged(cluster, of: ["FROM installations", "ORDER BY"]) {
            let page = try read(logging)
            #expect(page.count == 1000 && page.first?.installationID == "inst-002001")
        }
        #expect(logged.count == 1, "\(logged)")
        for plan in logged {
            #expect(!plan.contains("Sort") && plan.contains("Index Scan using installations_pkey"), "\(plan)")
        }
    }

    @Test func aPageOfInstallationsWalksTheKeyFromItsCursor() throws {
        let (store, cluster, database) = try makeStore()
        let (sql, _) = InstallationQuery(afterInstallationID: "x").listing(
            appID: "app_a", columns: PostgresStore.installationColumns, placeholder: "$")
        let arguments = "'app_a', 'inst-002000', 1000"
        // Which plan old statistics lead to varies from run to run (the bench's runs met a bitmap, a look at the
        // same data by hand another index). Fresh statistics and costs that make walking an index dear stand in
        // for them, so that without the guard PostgreSQL reads every installation past the cursor and sorts them.
        let adverse = Self.adverse
        try cluster.psql("ANALYZE installations", database: database)
        let unguarded = try plans(sql, arguments, settings: adverse, in: database, cluster)
        #expect(unguarded.custom.contains("Sort"), "\(unguarded.custom)")

        let guarded = try plans(
            sql, arguments, settings: adverse + "; " + PostgresStore.pageInKeyOrderSQL, in: database, cluster)
        for plan in [guarded.custom, guarded.generic] {
            #expect(!plan.contains("Sort") && !plan.contains("Bitmap"), "\(plan)")
            #expect(plan.contains("Index Scan using installations_pkey"), "\(plan)")
            #expect(plan.contains("installation_id >"), "\(plan)")
        }
        // And the page itself, through the store: the right rows, by the guarded plan.
        let page = try store.installations(
            appID: "app_a", query: InstallationQuery(afterInstallationID: "inst-002000", limit: 3))
        #expect(page.map(\.installationID) == ["inst-002001", "inst-002002", "inst-002003"])
        try expectTheStoresPageWalksTheKey(cluster, database) { logging in
            try logging.installations(
                appID: "app_a", query: InstallationQuery(afterInstallationID: "inst-002000", limit: 1000))
        }
    }

    @Test func anAudiencePageWalksTheKeyFromItsCursor() throws {
        let (store, cluster, database) = try makeStore()
        let audience = try AudienceExpression.parse("platform = ios")
        let (sql, values) = audience.listing(
            appID: "app_a", afterInstallationID: "inst-002000", limit: 1000, columns: PostgresStore.installationColumns,
            dialect: .postgres, now: Self.now)
        let arguments = values.map { value -> String in
            switch value {
            case .text(let text): "'\(text)'"
            case .integer(let integer): "\(integer)"
            }
        }.joined(separator: ", ")
        let adverse = Self.adverse
        try cluster.psql("ANALYZE installations", database: database)
        #expect(try plans(sql, arguments, settings: adverse, in: database, cluster).custom.contains("Sort"))
        let guarded = try plans(
            sql, arguments, settings: adverse + "; " + PostgresStore.pageInKeyOrderSQL, in: database, cluster)
        for plan in [guarded.custom, guarded.generic] {
            #expect(!plan.contains("Sort") && !plan.contains("Bitmap"), "\(plan)")
            #expect(plan.contains("Index Scan using installations_pkey"), "\(plan)")
        }
        let page = try store.installations(
            appID: "app_a", audience: audience, afterInstallationID: "inst-004998", limit: 10, now: Self.now)
        #expect(page.map(\.installationID) == ["inst-004999", "inst-005000"])
        try expectTheStoresPageWalksTheKey(cluster, database) { logging in
            try logging.installations(
                appID: "app_a", audience: audience, afterInstallationID: "inst-002000", limit: 1000, now: Self.now)
        }
    }

    @Test func anUpsertGroupsLookUpsWalkTheirIndexesWithPlansMadeOnce() throws {
        let (_, cluster, database) = try makeStore()
        let sql = PostgresStore.lockInstallationsSQL
        let arguments = "'app_a', ARRAY['inst-000010', 'inst-004000']"
        // Costs that make walking an index dear stand in for statistics that mislead: without the guard, the
        // plan made once for every later group reads the table.
        try cluster.psql("ANALYZE installations", database: database)
        let unguarded = try plans(sql, arguments, settings: Self.adverse, in: database, cluster)
        #expect(unguarded.generic.contains("Seq Scan") || unguarded.generic.contains("Bitmap"), "\(unguarded.generic)")
        let guarded = try plans(
            sql, arguments, settings: ([Self.adverse] + PostgresStore.indexLookupsOnlySQL).joined(separator: "; "),
            in: database, cluster)
        for plan in [guarded.custom, guarded.generic] {
            #expect(!plan.contains("Seq Scan") && !plan.contains("Bitmap"), "\(plan)")
            #expect(plan.contains("Index Scan using installations_pkey"), "\(plan)")
        }
        // Through the store: more groups than PostgreSQL plans one by one before it keeps a plan, each locking
        // by the key and looking up the holder of the token it takes by the token.
        let logging = try storeLoggingItsPlans(cluster, database)
        let logged = try plansLogged(cluster, of: ["installations"]) {
            for number in 1...7 {
                var update = InstallationUpdate()
                update.apnsToken = .set(String(format: "%064x", number))
                let upserted = try logging.upsertInstallation(
                    appID: "app_a", installationID: String(format: "inst-%06d", number * 500), update: update,
                    now: Self.now)
                #expect(!upserted.created && upserted.installation.apnsToken != nil)
            }
        }
        let moves = logged.filter { $0.contains("apns_token = NULL") }
        let locks = logged.filter { $0.contains("FOR UPDATE") && !$0.contains("apns_token = NULL") }
        #expect(locks.count == 7 && moves.count == 7, "\(logged)")
        for plan in locks {
            #expect(!plan.contains("Seq Scan") && plan.contains("Index Scan using installations_pkey"), "\(plan)")
            // Each key the index's condition, never the app alone with the keys as a filter: that walks every
            // installation of the app for each group.
            #expect(!plan.contains("Filter"), "\(plan)")
        }
        for plan in moves {
            #expect(!plan.contains("Seq Scan") && plan.contains("Index Scan using installations_apns_token"), "\(plan)")
            // Locked where found, then updated through the version locked.
            #expect(plan.contains("LockRows") && plan.contains("TID Cond: (ctid = held.locked)"), "\(plan)")
            #expect(!plan.contains("Hash") && !plan.contains("Merge"), "\(plan)")
        }
        // A group taking five tokens, three of them held by other installations, moves them in one statement.
        let group = (1...5).map { number in
            PostgresUpsert(
                appID: "app_a", installationID: String(format: "taker-%d", number), now: Self.now + 1
            ) { _ in
                var update = InstallationUpdate()
                update.apnsToken = .set(String(format: "%064x", number <= 3 ? number : 100 + number))
                return update
            }
        }
        let groupMoves = try plansLogged(cluster, of: ["apns_token = NULL"]) { logging.commitUpserts(group) }
        #expect(groupMoves.count == 1, "\(groupMoves)")
        for (number, member) in zip(1..., group) {
            #expect(
                try member.outcome?.get().installation.apnsToken
                    == String(format: "%064x", number <= 3 ? number : 100 + number))
        }
        for number in 1...3 {
            let holder = try logging.installation(
                appID: "app_a", installationID: String(format: "inst-%06d", number * 500))
            #expect(holder?.apnsToken == nil && holder?.updatedAt == Self.now + 1)
        }
    }

    /// Registrations of new installations, grouped, where the statistics predate the app's installations: the
    /// group's lock looks each key up, where PostgreSQL, taking the app for a row or two, walked every
    /// installation of the app with the keys as a filter (10,000 rows for each group in the upsert bench).
    @Test func anUpsertGroupsLockLooksEachKeyUpUnderStatisticsThatPredateTheApp() throws {
        let (_, cluster, database) = try makeStore()
        try cluster.psql(
            "ALTER DATABASE \(database) SET session_preload_libraries = 'auto_explain'", database: database)
        try cluster.psql("ALTER DATABASE \(database) SET auto_explain.log_min_duration = 0", database: database)
        let logging = try PostgresStore(
            configuration: .init(connectionString: cluster.connectionString(database: database)))
        let logged = try plansLogged(cluster, of: ["FROM installations", "FOR UPDATE"]) {
            for number in 1...7 {
                let upserted = try logging.upsertInstallation(
                    appID: "app_a", installationID: String(format: "new-%06d", number), update: InstallationUpdate(),
                    now: Self.now)
                #expect(upserted.created)
            }
            let existing = try logging.upsertInstallation(
                appID: "app_a", installationID: "inst-002500", update: InstallationUpdate(), now: Self.now)
            #expect(!existing.created && existing.installation.appVersion == "1.0")
        }
        #expect(logged.count == 8, "\(logged)")
        expectLookUps(logged, in: "installations", through: "installations_pkey", byKey: "installation_id")
    }

    /// Under such statistics every index led by the app looks as cheap as the token's, and the smallest won: the
    /// app versions', read in full for each token moved. Partial, it is no candidate; the primary key then ties
    /// with the token's index, which PostgreSQL keeps as the first it considered.
    @Test func aTokenMoveLooksTheHolderUpByItsToken() throws {
        let (_, cluster, database) = try makeEmptyStore(try StoreBackend.postgresConfiguration())
        // Statistics from while another app had the only installations; then 50,000 of `app_a`, with tokens and
        // short version keys, whose index is then the smallest led by the app.
        try cluster.psql(
            """
            ALTER TABLE installations SET (autovacuum_enabled = false);
            INSERT INTO installations (app_id, installation_id, platform, created_at, updated_at)
                SELECT 'app_other', 'other-' || g, 'ios', 0, 0 FROM generate_series(1, 100) g;
            ANALYZE installations;
            INSERT INTO installations (app_id, installation_id, platform, apns_token, fcm_token, app_version,
                    app_version_key, created_at, updated_at)
                SELECT 'app_a', 'inst-' || lpad(g::text, 6, '0'), 'ios', md5(g::text) || md5((g + 1)::text),
                    md5(g::text), '1.0', 'A1', 0, 0
                FROM generate_series(1, 50000) g ORDER BY random();
            """, database: database)
        for kind in TokenType.allCases {
            let plans = try plans(
                PostgresStore.moveTokensSQL(kind),
                "'app_a', ARRAY['absent', 'absent too'], ARRAY['inst-000001', 'inst-000002'], ARRAY[0, 0]::bigint[]",
                in: database, cluster)
            for plan in [plans.custom, plans.generic] {
                #expect(plan.contains("Index Scan using installations_\(kind.rawValue)_token"), "\(plan)")
                // The token the index's condition, never a filter on the app's rows.
                #expect(plan.contains("\(kind.rawValue)_token = k.token"), "\(plan)")
                #expect(
                    !plan.split(separator: "\n").contains { $0.contains("Filter:") && $0.contains("_token") }, "\(plan)"
                )
            }
        }
    }

    @Test func aClaimUpdatesTheRowsItLockedWithoutReadingTheMessageAgain() throws {
        let (_, cluster, database) = try makeStore()
        let arguments = "'msg_a', 1000, 'worker-1', \(Self.now + 300_000), \(Self.now)"
        let claim = try plans(PostgresStore.claimDueDeliveriesSQL, arguments, in: database, cluster)
        for plan in [claim.custom, claim.generic] {
            #expect(plan.contains("Tid Scan on message_deliveries d"), "\(plan)")
            #expect(plan.contains("TID Cond: (ctid = due.ctid)"), "\(plan)")
            #expect(!plan.contains("Join Filter"), "\(plan)")
        }
        // The statement claims what it locked, once each, in due order.
        let claimed = try cluster.psql(
            """
            PREPARE claim AS \(PostgresStore.claimDueDeliveriesSQL);
            EXECUTE claim(\(arguments.replacingOccurrences(of: "1000", with: "3")));
            """, database: database)
        let ids = claimed.split(separator: "\n").map { $0.split(separator: "|")[1] }
        #expect(ids == ["inst-000001", "inst-000002", "inst-000003"])
        let states = try cluster.psql(
            "SELECT state, claimed_by, count(*) FROM message_deliveries WHERE message_id = 'msg_a' GROUP BY 1, 2 ORDER BY 1",
            database: database)
        #expect(states == "claimed|worker-1|3\npending||4997\n")
    }

    @Test func theClaimsOfASilentInstanceAreFoundAmongTheClaimsAlone() throws {
        let (_, cluster, database) = try makeStore()
        try cluster.psql(
            """
            UPDATE message_deliveries SET state = 'claimed', claimed_by = 'tidingsd-a/' || (random() * 3)::int,
                claim_expires_at = 1, claim_epoch = 1
            WHERE message_id = 'msg_a' AND installation_id <= 'inst-000300';
            UPDATE message_deliveries SET state = 'claimed', claimed_by = 'tidingsd-b/0', claim_expires_at = 1
            WHERE message_id = 'msg_a' AND installation_id > 'inst-004900';
            INSERT INTO instances (id, heartbeat_at) VALUES ('tidingsd-a', 0), ('tidingsd-b', 0);
            """, database: database)
        let logging = try storeLoggingItsPlans(cluster, database)
        try logging.recordHeartbeat(instanceID: "tidingsd-b", now: Self.now)
        var released = 0
        let logged = try plansLogged(cluster, of: ["UPDATE message_deliveries d SET state = 'pending'"]) {
            released = try logging.releaseClaimsOfSilentInstances(silentFor: 60_000, now: Self.now)
        }
        #expect(released == 300)
        #expect(logged.count == 1, "\(logged)")
        for plan in logged {
            #expect(plan.contains("Index Scan using message_deliveries_claimed on"), "\(plan)")
            #expect(!plan.contains("Seq Scan on message_deliveries"), "\(plan)")
        }
        let states = try cluster.psql(
            "SELECT state, coalesce(claimed_by, '-'), count(*) FROM message_deliveries WHERE message_id = 'msg_a' GROUP BY 1, 2 ORDER BY 1",
            database: database)
        #expect(states == "claimed|tidingsd-b/0|100\npending|-|4900\n")
    }

    /// The claims of 1,300 deliveries checked 150 at a time, as a worker checks a queue it holds, where the
    /// statistics count no claims: each key looked up by the primary key, never every claim walked with the keys
    /// as a filter (the plan PostgreSQL picked for the keys joined as a set, 88 ms for 122 keys in a campaign).
    @Test func aClaimCheckLooksEachKeyUpByThePrimaryKey() throws {
        let (_, cluster, database) = try makeStore()
        try cluster.psql(
            """
            UPDATE message_deliveries SET state = 'claimed', claimed_by = 'tidingsd-a/0', claim_expires_at = 1,
                claim_epoch = 2
            WHERE message_id = 'msg_a' AND installation_id <= 'inst-001300';
            INSERT INTO instances (id, heartbeat_at) VALUES ('tidingsd-a', 0);
            """, database: database)
        // Held: epoch 2, claimed by the worker. Not held: an earlier epoch, another worker's claim's key, a row
        // still pending, a key that does not exist.
        func delivery(_ number: Int, epoch: Int64 = 2) -> MessageDelivery {
            var delivery = MessageDelivery(
                messageID: "msg_a", appID: "app_a", installationID: String(format: "inst-%06d", number), token: "t")
            delivery.claimEpoch = epoch
            return delivery
        }
        let queue =
            (1...146).map { delivery($0 * 8) } + [
                delivery(3, epoch: 1), delivery(2_000), delivery(9_999), delivery(5),
            ]
        try cluster.psql(
            "UPDATE message_deliveries SET claimed_by = 'tidingsd-b/0' WHERE installation_id = 'inst-000016'",
            database: database)
        let logging = try storeLoggingItsPlans(cluster, database)
        var check: ClaimCheck?
        let logged = try plansLogged(cluster, of: ["message_deliveries d", "claim_epoch = k.epoch"]) {
            check = try logging.checkClaims(queue, worker: "tidingsd-a/0", now: Self.now)
        }
        let expected = queue.map {
            $0.claimEpoch == 2 && $0.installationID <= "inst-001300" && $0.installationID != "inst-000016"
        }
        #expect(check?.held == expected)
        #expect(check?.held.filter { $0 }.count == 146)
        #expect(check?.heartbeatAge != nil)
        #expect(logged.count == 1, "\(logged)")
        expectLookUps(logged, in: "message_deliveries", through: "message_deliveries_pkey", byKey: "installation_id")
    }

    /// A worker's batch of outcomes, written as one statement where the statistics count neither the message nor
    /// its claims: each key looked up by the primary key (a hash join would read every row of the table, a walk
    /// of the message every row of it), and each outcome recorded only on a row its worker holds.
    @Test func aBatchOfOutcomesLooksEachKeyUpByThePrimaryKey() throws {
        let (_, cluster, database) = try makeStore()
        try cluster.psql(
            """
            UPDATE message_deliveries SET state = 'claimed', claimed_by = 'tidingsd-a/0', claim_expires_at = 1,
                claim_epoch = 2, attempts = 1
            WHERE message_id = 'msg_a' AND installation_id <= 'inst-001300';
            UPDATE message_deliveries SET claimed_by = 'tidingsd-b/0' WHERE installation_id = 'inst-000016';
            UPDATE message_deliveries SET state = 'cancelled' WHERE installation_id IN ('inst-000024', 'inst-000032');
            """, database: database)
        func completion(_ number: Int, _ result: DeliveryResult, epoch: Int64? = 2) -> DeliveryCompletion {
            var delivery = MessageDelivery(
                messageID: "msg_a", appID: "app_a", installationID: String(format: "inst-%06d", number), token: "t")
            delivery.claimEpoch = epoch ?? 0
            var completion = DeliveryCompletion(delivery, result: result)
            completion.claimEpoch = epoch
            return completion
        }
        // Held: sent, failed, retried, and one with no epoch to check. Not held: an earlier epoch, another
        // worker's claim, a row still pending, a key that does not exist. Cancelled under the claim: a push sent
        // is recorded sent, a retry leaves it cancelled. Given out of key order.
        let batch =
            (5...150).reversed().map { completion($0 * 8, .sent) } + [
                completion(1, .failed(reason: "BadDeviceToken")),
                completion(2, .retry(reason: "TooManyRequests", notBefore: Self.now + 5_000)),
                completion(3, .sent, epoch: nil), completion(5, .sent, epoch: 1), completion(2_000, .sent),
                completion(9_999, .sent), completion(24, .sent), completion(32, .retry(reason: "x", notBefore: 0)),
            ]
        // Planned for its arguments and generically, under costs that make walking an index dear: each key the
        // index's whole condition, never the message alone with the installations as a filter.
        let arguments = """
            ARRAY['msg_a', 'msg_a'], ARRAY['inst-000008', 'inst-000016'], ARRAY['sent', 'sent'],
            ARRAY[NULL, NULL]::text[], ARRAY[1, 1]::bigint[], ARRAY[NULL, NULL]::bigint[], ARRAY[2, 2]::bigint[],
            'tidingsd-a/0', 5
            """
        let planned = try plans(
            PostgresStore.completeDeliveriesSQL, arguments,
            settings: ([Self.adverse] + PostgresStore.indexLookupsOnlySQL).joined(separator: "; "), in: database,
            cluster)
        expectLookUps(
            [planned.custom, planned.generic], in: "message_deliveries", through: "message_deliveries_pkey",
            byKey: "installation_id")
        for plan in [planned.custom, planned.generic] {
            #expect(plan.contains("installation_id = k.installation_id"), "\(plan)")
        }
        let logging = try storeLoggingItsPlans(cluster, database)
        var recorded: [Bool] = []
        let logged = try plansLogged(cluster, of: ["UPDATE message_deliveries d", "k.epoch"]) {
            recorded = try logging.completeDeliveries(batch, worker: "tidingsd-a/0", now: Self.now)
        }
        let notRecorded: Set<String> = ["inst-000016", "inst-000005", "inst-002000", "inst-009999"]
        #expect(recorded == batch.map { !notRecorded.contains($0.installationID) })
        // Once for the batch, and once more for the four outcomes it did not record.
        #expect(logged.count == 2, "\(logged)")
        expectLookUps(logged, in: "message_deliveries", through: "message_deliveries_pkey", byKey: "installation_id")
        for plan in logged {
            // Locked where found, then updated through the version locked.
            #expect(plan.contains("LockRows") && plan.contains("TID Cond: (ctid = held.locked)"), "\(plan)")
            #expect(!plan.contains("Hash") && !plan.contains("Merge"), "\(plan)")
        }
        let rows = try cluster.psql(
            """
            SELECT installation_id, state, coalesce(reason, '-'), attempts, not_before, coalesce(claimed_by, '-')
            FROM message_deliveries
            WHERE installation_id IN ('inst-000001', 'inst-000002', 'inst-000003', 'inst-000005', 'inst-000016',
                'inst-000024', 'inst-000032', 'inst-000040')
            ORDER BY installation_id
            """, database: database)
        #expect(
            rows == """
                inst-000001|failed|BadDeviceToken|2|0|-
                inst-000002|pending|TooManyRequests|2|\(Self.now + 5_000)|-
                inst-000003|sent|-|2|0|-
                inst-000005|claimed|-|1|0|tidingsd-a/0
                inst-000016|claimed|-|1|0|tidingsd-b/0
                inst-000024|sent|-|2|0|-
                inst-000032|cancelled|-|2|0|-
                inst-000040|sent|-|2|0|-

                """)
        let sent = try cluster.psql(
            "SELECT count(*) FROM message_deliveries WHERE state = 'sent' AND app_id = 'app_a'", database: database)
        #expect(sent == "148\n")
    }

    /// The dry run's count of frequency slots, by installation, where the statistics predate the app's slots:
    /// each installation's slots found through the index by the installation, never every slot of the app
    /// filtered by installation.
    @Test func frequencySlotsAreCountedByInstallationUnderStatisticsThatPredateTheApp() throws {
        let (_, cluster, database) = try makeStore()
        try cluster.psql(
            """
            ALTER TABLE frequency_slots SET (autovacuum_enabled = false);
            INSERT INTO frequency_slots (app_id, installation_id, message_id, reserved_at)
                SELECT 'app_other', 'other-' || g, 'msg_other', 0 FROM generate_series(1, 100) g;
            ANALYZE frequency_slots;
            INSERT INTO frequency_slots (app_id, installation_id, message_id, reserved_at)
                SELECT 'app_a', 'inst-' || lpad((g % 5000)::text, 6, '0'), 'msg-' || (g / 5000), g
                FROM generate_series(1, 20000) g ORDER BY random();
            """, database: database)
        let logging = try storeLoggingItsPlans(cluster, database)
        // One installation asked twice, one with no slot in the window: counted once, and left out.
        let installations = (1...50).map { String(format: "inst-%06d", $0 * 10) } + ["inst-000010", "inst-777777"]
        var counts: [String: Int] = [:]
        let logged = try plansLogged(cluster, of: ["FROM frequency_slots"]) {
            counts = try logging.frequencySlotCounts(appID: "app_a", installationIDs: installations, since: 5000)
        }
        // Slots g = n, n + 5000, n + 10000, n + 15000 of each installation n; those after 5000 counted.
        #expect(counts.count == 50 && counts.values.allSatisfy { $0 == 3 }, "\(counts)")
        #expect(logged.count == 1, "\(logged)")
        expectLookUps(logged, in: "frequency_slots", through: "frequency_slots_window", byKey: "installation_id")
    }

    /// Which of a chunk's installations are still in an audience (a local-time message's recheck, a journey's
    /// facts), where the statistics predate the app's installations: each installation looked up by its key,
    /// never every installation of the app filtered by the chunk's ids.
    @Test func audienceMembershipLooksEachInstallationUpUnderStatisticsThatPredateTheApp() throws {
        let (_, cluster, database) = try makeStore()
        try cluster.psql(
            "UPDATE installations SET language = 'ja' WHERE installation_id <= 'inst-000100'", database: database)
        let logging = try storeLoggingItsPlans(cluster, database)
        let audience = try AudienceExpression.parse("language = ja")
        let chunk = (1...60).map { String(format: "inst-%06d", $0 * 3) } + ["absent"]
        var members: Set<String> = []
        let logged = try plansLogged(cluster, of: ["FROM installations", "language"]) {
            members = try logging.installationIDs(appID: "app_a", audience: audience, among: chunk, now: Self.now)
        }
        #expect(members == Set((1...33).map { String(format: "inst-%06d", $0 * 3) }))
        #expect(logged.count == 1, "\(logged)")
        expectLookUps(logged, in: "installations", through: "installations_pkey", byKey: "installation_id")
    }

    /// The profiles a templated message's chunk needs (`{{user.NAME}}`), where the statistics predate the app's
    /// profiles: each user looked up by the key, never every profile of the app filtered by the chunk's users.
    @Test func userProfilesAreLookedUpByUserUnderStatisticsThatPredateTheApp() throws {
        let (_, cluster, database) = try makeStore()
        try cluster.psql(
            """
            ALTER TABLE user_profiles SET (autovacuum_enabled = false);
            INSERT INTO user_profiles (app_id, user_id, attributes, updated_at)
                SELECT 'app_other', 'other-' || g, '{}', 0 FROM generate_series(1, 100) g;
            ANALYZE user_profiles;
            INSERT INTO user_profiles (app_id, user_id, attributes, updated_at)
                SELECT 'app_a', 'user-' || lpad(g::text, 6, '0'), '{"plan": "gold"}', 0
                FROM generate_series(1, 5000) g ORDER BY random();
            """, database: database)
        let logging = try storeLoggingItsPlans(cluster, database)
        let users = (1...60).map { String(format: "user-%06d", $0 * 7) } + ["nobody"]
        var found: [String: [String: AttributeValue]] = [:]
        let logged = try plansLogged(cluster, of: ["FROM user_profiles"]) {
            found = try logging.userAttributes(appID: "app_a", userIDs: users)
        }
        #expect(found.count == 60 && found["user-000007"] == ["plan": .string("gold")], "\(found)")
        #expect(logged.count == 1, "\(logged)")
        expectLookUps(logged, in: "user_profiles", through: "user_profiles_pkey", byKey: "user_id")
    }

    /// The Live Activity tokens of the installations a start is sent to, where the statistics predate the app's
    /// tokens: each installation's found by the key, never every token of the app filtered by installation.
    @Test func liveActivityTokensAreLookedUpByInstallationUnderStatisticsThatPredateTheApp() throws {
        let (_, cluster, database) = try makeStore()
        try cluster.psql(
            """
            ALTER TABLE live_activity_tokens SET (autovacuum_enabled = false);
            INSERT INTO live_activity_tokens (app_id, installation_id, kind, scope, attributes_type, token,
                    environment, created_at, updated_at)
                SELECT 'app_a', 'other-' || g, 'push_to_start', 'Score', 'ScoreAttributes', 'o-' || g, 'production', 0, 0
                FROM generate_series(1, 100) g;
            ANALYZE live_activity_tokens;
            INSERT INTO live_activity_tokens (app_id, installation_id, kind, scope, attributes_type, token,
                    environment, created_at, updated_at)
                SELECT 'app_a', 'inst-' || lpad(g::text, 6, '0'), kind, 'Score', 'ScoreAttributes',
                    kind || '-' || g, 'production', 0, 0
                FROM generate_series(1, 5000) g, unnest(ARRAY['push_to_start', 'update']) AS kind ORDER BY random();
            """, database: database)
        let logging = try storeLoggingItsPlans(cluster, database)
        let installations = (1...40).map { String(format: "inst-%06d", $0 * 11) } + ["inst-000011", "absent"]
        var tokens: [LiveActivityToken] = []
        let logged = try plansLogged(cluster, of: ["FROM live_activity_tokens"]) {
            tokens = try logging.liveActivityTokens(appID: "app_a", installationIDs: installations, kind: .pushToStart)
        }
        #expect(tokens.map(\.installationID) == (1...40).map { String(format: "inst-%06d", $0 * 11) })
        #expect(tokens.allSatisfy { $0.kind == .pushToStart && $0.token.hasPrefix("push_to_start-") })
        #expect(logged.count == 1, "\(logged)")
        expectLookUps(
            logged, in: "live_activity_tokens", through: "live_activity_tokens_pkey", byKey: "installation_id")
    }

    /// A store that looks at its statistics after every 200 installations it creates, on a table analyzed
    /// empty; and the number of rows the table's statistics count, once they stop changing.
    func makeGrowingStore() throws -> (PostgresStore, () throws -> String) {
        var configuration = try StoreBackend.postgresConfiguration()
        configuration.analyzeAfterCreatedInstallations = 200
        let (store, cluster, database) = try makeEmptyStore(configuration)
        try cluster.psql(
            "ALTER TABLE installations SET (autovacuum_enabled = false); ANALYZE installations", database: database)
        let counted = {
            // The analysis runs in the background: wait until no look is running.
            let deadline = ContinuousClock.now + .seconds(10)
            while store.installationGrowth.withLock({ $0.looking }) && ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: 0.02)
            }
            return try cluster.psql(
                "SELECT reltuples::bigint FROM pg_class WHERE oid = 'installations'::regclass", database: database
            ).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return (store, counted)
    }

    @Test func anImportThatOutgrowsTheStatisticsAnalyzesTheInstallations() throws {
        let (store, counted) = try makeGrowingStore()
        func batch(_ rows: ClosedRange<Int>, dryRun: Bool = false) -> ImportBatch {
            let imported = rows.map { number in
                var update = InstallationUpdate()
                update.apnsToken = .set(String(format: "%064x", number))
                return ImportRow(
                    number: number, items: [ImportRow.Item(installationID: "i-\(number)", update: update)],
                    userID: nil, userDigest: nil, tags: [])
            }
            return ImportBatch(
                appID: "app_a", importID: "imp", profile: "native", firstRow: rows.lowerBound, rowCount: rows.count,
                rows: imported, rejectedBeforeStore: [], dryRun: dryRun, now: Self.now)
        }
        // Fewer than the threshold: the statistics stay those of the empty table.
        #expect(try store.importBatch(batch(1...150)).progress.imported == 150)
        #expect(try counted() == "0")
        // A dry run writes nothing, so it counts for nothing either.
        _ = try store.importBatch(batch(151...300, dryRun: true))
        #expect(try counted() == "0")
        // Past the threshold, and more than the statistics count: analyzed, so they count the import.
        #expect(try store.importBatch(batch(151...300)).progress.imported == 300)
        #expect(try counted() == "300")
        // Past the threshold again but not more than the table held: left be, until more come.
        _ = try store.importBatch(batch(301...550))
        #expect(try counted() == "300")
        _ = try store.importBatch(batch(551...650))
        #expect(try counted() == "300")
        _ = try store.importBatch(batch(651...800))
        #expect(try counted() == "800")
    }

    @Test func registrationsThatOutgrowTheStatisticsAnalyzeTheInstallations() throws {
        let (store, counted) = try makeGrowingStore()
        for number in 1...150 {
            _ = try store.upsertInstallation(
                appID: "app_a", installationID: "r-\(number)", update: .init(), now: Self.now)
        }
        #expect(try counted() == "0")
        // An installation written again is no new one.
        for number in 1...100 {
            _ = try store.upsertInstallation(
                appID: "app_a", installationID: "r-\(number)", update: .init(), now: Self.now)
        }
        #expect(try counted() == "0")
        // The 200th new one: analyzed.
        for number in 151...200 {
            _ = try store.upsertInstallation(
                appID: "app_a", installationID: "r-\(number)", update: .init(), now: Self.now)
        }
        #expect(try counted() == "200")
    }
}
