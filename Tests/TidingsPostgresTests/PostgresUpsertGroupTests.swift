import Foundation
import Testing
import TidingsModel
import TidingsStore
import TidingsStoreTesting

@testable import TidingsPostgres

/// Installation upserts written together (group commit on PostgreSQL): each member gets its own outcome, a
/// member whose `prepare` throws writes nothing while the others are written, tokens taken inside a group
/// end up where the last taker is, and concurrent upserts of one installation lose no update.
@Suite struct PostgresUpsertGroupTests {
    static let now: Int64 = 1_800_000_000_000

    struct Refused: Error {}

    func makeStore() throws -> PostgresStore {
        let store = try PostgresStore(configuration: try StoreBackend.postgresConfiguration())
        try store.createApp(AppRecord(id: "app_a", name: "a", bundleID: "com.example.a", createdAt: Self.now))
        return store
    }

    func member(
        _ installationID: String, at now: Int64 = now, _ prepare: @escaping (Installation?) throws -> InstallationUpdate
    ) -> PostgresUpsert {
        PostgresUpsert(appID: "app_a", installationID: installationID, now: now, prepare: prepare)
    }

    func apns(_ token: String) -> InstallationUpdate {
        var update = InstallationUpdate()
        update.apnsToken = .set(token)
        return update
    }

    /// Statistics taken while the app's installations had no token (its first registrations, before the SDK
    /// has one) once made PostgreSQL walk every token of the app to move one, for every group, until the next
    /// `ANALYZE`. The plan of the statement the store runs, under those statistics, must look the token up.
    @Test func aTokenIsMovedByLookingItUpEvenWithStatisticsFromBeforeAnyToken() throws {
        let configuration = try StoreBackend.postgresConfiguration()
        let database = configuration.connectionString.components(separatedBy: "dbname=").last ?? ""
        let store = try PostgresStore(configuration: configuration)
        try store.createApp(AppRecord(id: "app_a", name: "a", bundleID: "com.example.a", createdAt: Self.now))
        let cluster = try PostgresTestCluster.shared.get()
        try cluster.psql(
            """
            ALTER TABLE installations SET (autovacuum_enabled = false);
            INSERT INTO installations (app_id, installation_id, platform, created_at, updated_at)
                SELECT 'app_a', 'early-' || g, 'ios', 0, 0 FROM generate_series(1, 100) g;
            ANALYZE installations;
            INSERT INTO installations (app_id, installation_id, platform, apns_token, created_at, updated_at)
                SELECT 'app_a', 'later-' || g, 'ios', md5(g::text) || md5((g + 1)::text), 0, 0
                FROM generate_series(1, 20000) g;
            """, database: database)
        let plan = try cluster.psql(
            """
            PREPARE move(text, text[], text[], bigint[]) AS \(PostgresStore.moveTokensSQL(.apns));
            SET plan_cache_mode = force_custom_plan;
            EXPLAIN EXECUTE move('app_a', ARRAY[md5('7') || md5('8')], ARRAY['someone'], ARRAY[1]::bigint[]);
            SET plan_cache_mode = force_generic_plan;
            EXPLAIN EXECUTE move('app_a', ARRAY[md5('7') || md5('8')], ARRAY['someone'], ARRAY[1]::bigint[]);
            """, database: database)
        let conditions = plan.split(separator: "\n").filter { $0.contains("Index Cond") }
        #expect(conditions.count == 2, "\(plan)")
        #expect(conditions.allSatisfy { $0.contains("apns_token = k.token") }, "\(plan)")
        // And the move itself: the token goes to its new holder.
        _ = try store.upsertInstallation(
            appID: "app_a", installationID: "new",
            update: apns(
                try cluster.psql("SELECT md5('7') || md5('8')", database: database).trimmingCharacters(in: .newlines)),
            now: Self.now)
        #expect(try store.installation(appID: "app_a", installationID: "later-7")?.apnsToken == nil)
    }

    @Test func aGroupWritesEveryMemberButTheOneWhosePrepareThrows() throws {
        let store = try makeStore()
        var seenBySecond: Installation??
        let group = [
            member("i1") { _ in
                var update = InstallationUpdate()
                update.userID = .set("alice")
                return update
            },
            member("refused") { _ in throw Refused() },
            member("i2") { _ in self.apns("t2") },
            member("i1", at: Self.now + 1) { existing in
                seenBySecond = existing
                var update = InstallationUpdate()
                update.locale = .set("ja_JP")
                return update
            },
        ]
        store.commitUpserts(group)

        let first = try #require(try group[0].outcome?.get())
        #expect(first.created && first.installation.userID == "alice")
        #expect(throws: Refused.self) { try group[1].outcome?.get() }
        #expect(try group[2].outcome?.get().installation.apnsToken == "t2")
        // The later member of the same installation saw the earlier one's write, in the same transaction.
        #expect(seenBySecond == .some(first.installation))
        let second = try #require(try group[3].outcome?.get())
        #expect(!second.created)
        #expect(second.installation.userID == "alice" && second.installation.locale == "ja_JP")

        #expect(try store.installation(appID: "app_a", installationID: "refused") == nil)
        #expect(try store.installation(appID: "app_a", installationID: "i1") == second.installation)
        #expect(try store.installation(appID: "app_a", installationID: "i2") == group[2].outcome?.get().installation)
    }

    @Test func aGroupWhoseEveryPrepareThrowsWritesNothing() throws {
        let store = try makeStore()
        let group = [member("a") { _ in throw Refused() }, member("b") { _ in throw Refused() }]
        store.commitUpserts(group)
        for member in group { #expect(throws: Refused.self) { try member.outcome?.get() } }
        #expect(try store.installations(appID: "app_a", query: .init()).isEmpty)
    }

    @Test func tokensTakenInsideAndOutsideAGroupEndUpWithTheLastTaker() throws {
        let store = try makeStore()
        _ = try store.upsertInstallation(
            appID: "app_a", installationID: "outside", update: apns("t-out"), now: Self.now)
        let group = [
            member("first") { _ in self.apns("shared") },
            member("second") { _ in self.apns("shared") },
            member("taker") { _ in self.apns("t-out") },
        ]
        store.commitUpserts(group)
        #expect(try group[0].outcome?.get().installation.apnsToken == "shared")
        #expect(try store.installation(appID: "app_a", installationID: "first")?.apnsToken == nil)
        #expect(try store.installation(appID: "app_a", installationID: "first")?.tokenRegisteredAt[.apns] == nil)
        #expect(try store.installation(appID: "app_a", installationID: "second")?.apnsToken == "shared")
        #expect(try store.installation(appID: "app_a", installationID: "taker")?.apnsToken == "t-out")
        let outside = try #require(try store.installation(appID: "app_a", installationID: "outside"))
        #expect(outside.apnsToken == nil && outside.tokenRegisteredAt[.apns] == nil)
    }

    @Test func twoInstallationsSwappingTokensInOneGroupEachEndUpWithTheOther() throws {
        // The unique token index checks row by row: the tokens are taken from the stored rows before the
        // group's rows are written, so neither row is refused for a token the other still holds.
        let store = try makeStore()
        _ = try store.upsertInstallation(appID: "app_a", installationID: "x", update: apns("tx"), now: Self.now)
        _ = try store.upsertInstallation(appID: "app_a", installationID: "y", update: apns("ty"), now: Self.now)
        let group = [member("x", at: Self.now + 1) { _ in self.apns("ty") }, member("y") { _ in self.apns("tx") }]
        store.commitUpserts(group)
        for member in group { #expect(throws: Never.self) { try member.outcome?.get() } }
        #expect(try store.installation(appID: "app_a", installationID: "x")?.apnsToken == "ty")
        #expect(try store.installation(appID: "app_a", installationID: "y")?.apnsToken == "tx")
    }

    /// A group's installations are read, and its tokens taken, one app at a time: the same installation id and
    /// the same token in two apps are two installations and two tokens.
    @Test func aGroupOfTwoAppsReadsAndTakesTokensWithinEachApp() throws {
        let store = try makeStore()
        try store.createApp(AppRecord(id: "app_b", name: "b", bundleID: "com.example.b", createdAt: Self.now))
        for app in ["app_a", "app_b"] {
            var update = apns("held-\(app)")
            update.locale = .set(app)
            _ = try store.upsertInstallation(appID: app, installationID: "i1", update: update, now: Self.now)
            _ = try store.upsertInstallation(appID: app, installationID: "holder", update: apns("t"), now: Self.now)
            _ = try store.upsertInstallation(appID: app, installationID: "late", update: apns("u"), now: Self.now)
        }
        let seen = LockedBox<[String: String?]>([:])
        func taking(_ app: String, _ id: String, _ token: String, at: Int64) -> PostgresUpsert {
            PostgresUpsert(appID: app, installationID: id, now: at) { existing in
                seen.withLock { $0["\(app)/\(id)"] = existing?.locale }
                return self.apns(token)
            }
        }
        // Interleaved apps; in app_b the token "t" is taken by nobody, "u" by a member written later.
        let group = [
            taking("app_b", "i1", "u", at: Self.now + 3), taking("app_a", "new", "t", at: Self.now + 1),
            taking("app_a", "i1", "u", at: Self.now + 2),
        ]
        store.commitUpserts(group)
        for member in group { #expect(throws: Never.self) { try member.outcome?.get() } }
        #expect(seen.withLock { $0 } == ["app_b/i1": "app_b", "app_a/new": String?.none, "app_a/i1": "app_a"])
        let holderA = try #require(try store.installation(appID: "app_a", installationID: "holder"))
        #expect(holderA.apnsToken == nil && holderA.updatedAt == Self.now + 1)
        let holderB = try #require(try store.installation(appID: "app_b", installationID: "holder"))
        #expect(holderB.apnsToken == "t" && holderB.updatedAt == Self.now)
        // Each app's "late" lost "u" when its own i1 took it.
        for (app, at) in [("app_a", Self.now + 2), ("app_b", Self.now + 3)] {
            let late = try #require(try store.installation(appID: app, installationID: "late"))
            #expect(late.apnsToken == nil && late.updatedAt == at, "\(app)")
            #expect(try store.installation(appID: app, installationID: "i1")?.apnsToken == "u", "\(app)")
        }
        #expect(try store.installation(appID: "app_a", installationID: "new")?.apnsToken == "t")
    }

    @Test func aGroupTheServerRefusesIsWrittenMemberByMemberSoOnlyTheCulpritFails() throws {
        var configuration = try StoreBackend.postgresConfiguration()
        configuration.lockTimeout = .milliseconds(300)
        let store = try PostgresStore(configuration: configuration)
        try store.createApp(AppRecord(id: "app_a", name: "a", bundleID: "com.example.a", createdAt: Self.now))
        _ = try store.upsertInstallation(appID: "app_a", installationID: "held", update: apns("t-held"), now: Self.now)
        // Another instance holds the row whose token "b" takes: taking it runs into the lock timeout.
        let other = try PostgresConnection(settings: store.pool.settings)
        try other.execute("BEGIN")
        try other.run("UPDATE installations SET locale = 'busy' WHERE installation_id = 'held'")
        let group = [member("a") { _ in self.apns("t-a") }, member("b") { _ in self.apns("t-held") }]
        store.commitUpserts(group)
        try other.execute("ROLLBACK")

        #expect(try group[0].outcome?.get().installation.apnsToken == "t-a")
        let refused = #expect(throws: PostgresError.self) { try group[1].outcome?.get() }
        #expect(refused?.isServerTimeout == true)
        #expect(try store.installation(appID: "app_a", installationID: "a")?.apnsToken == "t-a")
        #expect(try store.installation(appID: "app_a", installationID: "b") == nil)
        #expect(try store.installation(appID: "app_a", installationID: "held")?.apnsToken == "t-held")
    }

    /// A group takes tokens from holders that another transaction changes while the group waits for their locks.
    /// The holder of "t-held" keeps its token in the version the group's statement cannot see: the group is
    /// decided again, and every token still ends up with its taker, the other change kept. Alone or with others.
    @Test(arguments: [1, 3]) func tokensWhoseHoldersChangeWhileTheGroupWaitsStillGoToTheirTakers(members: Int) throws {
        let store = try makeStore()
        _ = try store.upsertInstallation(
            appID: "app_a", installationID: "holder", update: apns("t-held"), now: Self.now)
        _ = try store.upsertInstallation(appID: "app_a", installationID: "other", update: apns("t-two"), now: Self.now)
        let change = try PostgresConnection(settings: store.pool.settings)
        try change.execute("BEGIN")
        try change.run("UPDATE installations SET locale = 'changed' WHERE installation_id = 'holder'")
        let group = Array(
            [
                member("a", at: Self.now + 1) { _ in self.apns("t-held") },
                member("b", at: Self.now + 1) { _ in self.apns("t-two") },
                member("c", at: Self.now + 1) { _ in self.apns("t-new") },
            ].prefix(members))
        let finished = DispatchSemaphore(value: 0)
        Thread {
            store.commitUpserts(group)
            finished.signal()
        }.start()
        // The group waits for the lock on the holder of "t-held".
        #expect(finished.wait(timeout: .now() + .milliseconds(500)) == .timedOut)
        try change.execute("COMMIT")
        #expect(finished.wait(timeout: .now() + 10) == .success)
        for (member, token) in zip(group, ["t-held", "t-two", "t-new"]) {
            #expect(try member.outcome?.get().installation.apnsToken == token)
            #expect(try store.installation(appID: "app_a", installationID: member.installationID)?.apnsToken == token)
        }
        let holder = try #require(try store.installation(appID: "app_a", installationID: "holder"))
        #expect(holder.apnsToken == nil && holder.locale == "changed" && holder.updatedAt == Self.now + 1)
        #expect(
            try store.installation(appID: "app_a", installationID: "other")?.apnsToken == (members > 1 ? nil : "t-two"))
    }

    @Test func concurrentUpsertsOfOneInstallationOnTwoInstancesLoseNoUpdate() throws {
        let configuration = try StoreBackend.postgresConfiguration()
        let instances = [
            try PostgresStore(configuration: configuration), try PostgresStore(configuration: configuration),
        ]
        try instances[0].createApp(AppRecord(id: "app_a", name: "a", bundleID: "com.example.a", createdAt: Self.now))
        var start = InstallationUpdate()
        start.locale = .set("0")
        _ = try instances[0].upsertInstallation(appID: "app_a", installationID: "i", update: start, now: Self.now)
        let threads = 8
        let perThread = 25
        let failures = LockedBox<[String]>([])
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for step in 0..<perThread {
                do {
                    // Each upsert adds one to the count it reads: a lost update shows as a smaller total.
                    _ = try instances[(thread + step) % 2].upsertInstallation(
                        appID: "app_a", installationID: "i", now: Self.now
                    ) { existing in
                        var update = InstallationUpdate()
                        update.locale = .set(String(Int(existing?.locale ?? "").map { $0 + 1 } ?? -1))
                        return update
                    }
                } catch {
                    failures.withLock { $0.append(String(describing: error)) }
                }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let final = try instances[1].installation(appID: "app_a", installationID: "i")
        #expect(final?.locale == String(threads * perThread))
    }

    /// The next group is written while this one waits for its commit (`nextGroupMayStart`). A member of it
    /// that upserts an installation this group wrote waits for the commit and decides on what it wrote.
    @Test func aGroupWrittenWhileTheOneBeforeCommitsDecidesOnWhatThatOneWrote() throws {
        let store = try makeStore()
        _ = try store.upsertInstallation(appID: "app_a", installationID: "i1", update: apns("old"), now: Self.now)
        let seen = LockedBox<[Installation?]>([])
        let next = [
            member("i1", at: Self.now + 1) { existing in
                seen.withLock { $0.append(existing) }
                var update = InstallationUpdate()
                update.locale = .set("ja_JP")
                return update
            }
        ]
        let nextDone = DispatchSemaphore(value: 0)
        var nextWaited = false
        store.commitUpserts([member("i1") { _ in self.apns("new") }]) {
            Thread {
                store.commitUpserts(next)
                nextDone.signal()
            }.start()
            // Its read of `i1` waits for this group's lock.
            nextWaited = nextDone.wait(timeout: .now() + .milliseconds(300)) == .timedOut
        }
        #expect(nextDone.wait(timeout: .now() + 10) == .success)
        #expect(nextWaited)
        #expect(seen.withLock { $0.map { $0?.apnsToken } } == ["new"])
        let stored = try store.installation(appID: "app_a", installationID: "i1")
        #expect(stored?.apnsToken == "new" && stored?.locale == "ja_JP")
    }

    /// An installation created by another transaction after a group found it absent, and committed before the
    /// group inserts it (the next group while this one commits, or another instance), is not overwritten by a
    /// row decided on nothing: the group is written again on the committed row.
    @Test func anInstallationCreatedMeanwhileIsDecidedOnAgainNotOverwritten() throws {
        let store = try makeStore()
        let seen = LockedBox<[Installation?]>([])
        let decided = DispatchSemaphore(value: 0)
        let next = [
            member("fresh", at: Self.now + 1) { existing in
                seen.withLock { $0.append(existing) }
                decided.signal()
                return self.apns("t-next")
            }
        ]
        let nextDone = DispatchSemaphore(value: 0)
        var decidedBeforeCommit = false
        store.commitUpserts([
            member("fresh") { _ in
                var update = InstallationUpdate()
                update.userID = .set("alice")
                return update
            }
        ]) {
            Thread {
                store.commitUpserts(next)
                nextDone.signal()
            }.start()
            // The next group reads `fresh` before this group's insert of it is committed: it finds nothing.
            decidedBeforeCommit = decided.wait(timeout: .now() + 10) == .success
        }
        #expect(nextDone.wait(timeout: .now() + 10) == .success)
        #expect(decidedBeforeCommit)
        let decisions = seen.withLock { $0 }
        #expect(decisions.count == 2 && decisions.first == .some(nil), "\(decisions)")
        #expect(decisions.last??.userID == "alice")
        let outcome = try #require(try next[0].outcome?.get())
        #expect(!outcome.created)
        let stored = try store.installation(appID: "app_a", installationID: "fresh")
        #expect(stored?.userID == "alice" && stored?.apnsToken == "t-next")
    }

    @Test func textBytesAndJSONSurviveTheGroupsArrays() throws {
        let store = try makeStore()
        let awkward = #"a "quoted", {braced} back\slash NULL"#
        var update = InstallationUpdate()
        update.userID = .set(awkward)
        update.locale = .set("NULL")
        update.deviceModel = .set("")
        update.consentAds = .set(false)
        update.secretDigest = .set([0, 1, 0x5c, 0x22, 0xff])
        update.attributes = ["name": .string(awkward), "orders": .number(3), "vip": .bool(true)]
        let written = try store.upsertInstallation(
            appID: "app_a", installationID: awkward, update: update, now: Self.now)
        let read = try #require(try store.installation(appID: "app_a", installationID: awkward))
        #expect(read == written.installation)
        #expect(read.userID == awkward && read.locale == "NULL" && read.deviceModel == "")
        #expect(read.consents.ads == false && read.consents.notifications == nil)
        #expect(read.secretDigest == [0, 1, 0x5c, 0x22, 0xff])
        #expect(read.attributes["name"] == .string(awkward))
    }
}
