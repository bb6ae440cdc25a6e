import Foundation
import Testing
import TidingsModel
import TidingsStoreTesting

@testable import TidingsPostgres
@testable import TidingsStore

/// The journey signals of an installation upsert and of a user profile write are stored in the write's own
/// transaction, on both backends: a committed write always has its signals, a refused or rolled-back one none.
@Suite struct JourneySignalAtomicityTests {
    static let now: Int64 = 1_800_000_000_000

    func makeStore(_ backend: StoreBackend) throws -> any Store {
        let store = try backend.makeStore()
        try store.createApp(AppRecord(id: "app_a", name: "a", bundleID: "com.example.a", createdAt: Self.now))
        return store
    }

    static func signal(_ name: String, installation: String = "", user: String? = nil) -> JourneySignal {
        JourneySignal(
            appID: "app_a", kind: .attribute, name: name, installationID: installation, userID: user,
            value: "\"pro\"", attributes: nil, occurredAt: now)
    }

    static func update(signalling names: [String], installation: String) -> InstallationUpdate {
        var update = InstallationUpdate()
        update.attributes = ["plan": .string("pro")]
        update.journeySignals = names.map { signal($0, installation: installation) }
        return update
    }

    /// Makes the database refuse, inside the writing transaction, any signal named `doomed`: the write fails after
    /// its installation or profile row was written, as a crash or a lost connection at that point would.
    func refuseDoomedSignals(in store: any Store) throws {
        if let sqlite = store as? SQLiteStore {
            try sqlite.database.write { db in
                try db.execute(
                    """
                    CREATE TRIGGER refuse_doomed BEFORE INSERT ON journey_signals WHEN NEW.name = 'doomed'
                    BEGIN SELECT RAISE(ABORT, 'doomed signal'); END
                    """)
            }
        } else if let postgres = store as? PostgresStore {
            try postgres.write { db in
                try db.execute(
                    """
                    CREATE FUNCTION refuse_doomed() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN RAISE EXCEPTION 'doomed signal'; END $$;
                    CREATE TRIGGER refuse_doomed BEFORE INSERT ON journey_signals FOR EACH ROW
                    WHEN (NEW.name = 'doomed') EXECUTE FUNCTION refuse_doomed();
                    """)
            }
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func aCommittedUpsertHasItsSignalsAndARefusedOneNeither(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        _ = try store.upsertInstallation(
            appID: "app_a", installationID: "i1", update: Self.update(signalling: ["plan"], installation: "i1"),
            now: Self.now)
        #expect(try store.journeySignals(limit: 10).map(\.name) == ["plan"])
        #expect(try store.journeySignals(limit: 10).first?.installationID == "i1")

        struct Refused: Error {}
        #expect(throws: Refused.self) {
            try store.upsertInstallation(appID: "app_a", installationID: "i2", now: Self.now) { _ in
                throw Refused()
            }
        }
        #expect(try store.installation(appID: "app_a", installationID: "i2") == nil)
        #expect(try store.journeySignals(limit: 10).count == 1)
    }

    @Test(arguments: StoreBackend.allCases)
    func anUpsertWhoseSignalCannotBeStoredIsRolledBack(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        try refuseDoomedSignals(in: store)
        #expect(throws: (any Error).self) {
            try store.upsertInstallation(
                appID: "app_a", installationID: "i1",
                update: Self.update(signalling: ["plan", "doomed"], installation: "i1"), now: Self.now)
        }
        #expect(try store.installation(appID: "app_a", installationID: "i1") == nil)
        #expect(try store.journeySignals(limit: 10).isEmpty, "the signal written before the failure went too")
    }

    /// Many upserts at once are written in groups (several per transaction on PostgreSQL, a group commit on
    /// SQLite): each committed member has its signal, and a member whose signal fails leaves nothing while
    /// the others of its group are written.
    @Test(arguments: StoreBackend.allCases)
    func groupedUpsertsKeepEachMembersSignalsWithIt(_ backend: StoreBackend) async throws {
        let store = try makeStore(backend)
        try refuseDoomedSignals(in: store)
        let ids = (0..<40).map { "i\($0)" }
        let outcomes = await withTaskGroup(of: (String, Bool).self) { group in
            for id in ids {
                group.addTask {
                    let name = id.hasSuffix("7") ? "doomed" : "plan"
                    let written = await withCheckedContinuation { continuation in
                        store.upsertInstallation(
                            appID: "app_a", installationID: id, now: Self.now,
                            prepare: { _ in Self.update(signalling: [name], installation: id) },
                            completion: { continuation.resume(returning: (try? $0.get()) != nil) })
                    }
                    return (id, written)
                }
            }
            var outcomes: [String: Bool] = [:]
            for await (id, written) in group { outcomes[id] = written }
            return outcomes
        }
        let doomed = Set(ids.filter { $0.hasSuffix("7") })
        for id in ids {
            #expect(outcomes[id] == !doomed.contains(id), "\(id)")
            let stored = try store.installation(appID: "app_a", installationID: id)
            #expect((stored != nil) == !doomed.contains(id), "\(id)")
        }
        let signalled = try store.journeySignals(limit: 100).map(\.installationID)
        #expect(Set(signalled) == Set(ids).subtracting(doomed))
        #expect(signalled.count == ids.count - doomed.count, "one signal per committed upsert")
    }

    @Test(arguments: StoreBackend.allCases)
    func aProfileWriteHasItsSignalsOrIsRolledBackWithThem(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        try refuseDoomedSignals(in: store)
        var seen: (before: [String: AttributeValue], after: [String: AttributeValue])?
        _ = try store.updateUserProfile(
            appID: "app_a", userID: "alice", now: Self.now,
            signalling: { before, after in
                seen = (before, after)
                return [Self.signal("user.plan", user: "alice")]
            }
        ) { _ in ["plan": .string("pro")] }
        #expect(seen?.before == [:] && seen?.after == ["plan": .string("pro")])
        #expect(try store.journeySignals(limit: 10).map(\.name) == ["user.plan"])
        #expect(try store.journeySignals(limit: 10).first?.userID == "alice")

        #expect(throws: (any Error).self) {
            try store.updateUserProfile(
                appID: "app_a", userID: "alice", now: Self.now + 1,
                signalling: { _, _ in [Self.signal("user.plan", user: "alice"), Self.signal("doomed", user: "alice")] }
            ) { _ in ["plan": .string("free")] }
        }
        #expect(try store.userProfile(appID: "app_a", userID: "alice")?.attributes == ["plan": .string("pro")])
        #expect(try store.journeySignals(limit: 10).count == 1)

        // A removal that empties the profile signals too.
        _ = try store.updateUserProfile(
            appID: "app_a", userID: "alice", now: Self.now + 2,
            signalling: { _, after in after.isEmpty ? [Self.signal("user.plan", user: "alice")] : [] }
        ) { _ in [:] }
        #expect(try store.userProfile(appID: "app_a", userID: "alice") == nil)
        #expect(try store.journeySignals(limit: 10).count == 2)
    }
}
