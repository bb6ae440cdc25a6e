import Foundation
import Testing
import TidingsModel
import TidingsSQLite
import TidingsStore
import TidingsStoreTesting

/// Erasure on every backend (``ErasureStore``): what changes, the tombstone, the forwarders' notices, and,
/// on SQLite, a search of every table and of the raw database and log files for the erased person.
@Suite struct StoreErasureTests {
    typealias Fixture = ErasureFixture

    @Test(arguments: StoreBackend.allCases)
    func erasureReplacesTheUserEverywhereAndQueuesOneNoticePerForwarder(_ backend: StoreBackend) throws {
        let store = try backend.makeStore()
        try Fixture.populate(store)
        let funnelBefore = try store.funnel(appID: Fixture.appID, scope: .campaign("c1"))

        let forgotten = try store.eraseUser(Fixture.erasure)
        #expect(
            forgotten
                == ForgottenUser(
                    installations: 2, tags: 2, events: 2, messages: 1, auditEntries: 2, forwarderNotices: 2,
                    profiles: 1))
        #expect(try store.userProfile(appID: Fixture.appID, userID: Fixture.userID) == nil)
        #expect(try store.userProfile(appID: Fixture.appID, userID: "bob")?.attributes == ["plan": .string("free")])

        for id in ["phone", "pad"] {
            let installation = try #require(try store.installation(appID: Fixture.appID, installationID: id))
            #expect(installation.userID == nil)
            #expect(installation.attributes.isEmpty, "personal attributes are cleared")
            #expect(installation.apnsToken != nil, "the device still gets messages sent to everyone")
        }
        let bob = try #require(try store.installation(appID: Fixture.appID, installationID: "bob-phone"))
        #expect(bob.userID == "bob")
        #expect(bob.attributes == ["first_name": .string("Bob")])

        let events = try store.events(appID: Fixture.appID, query: EventQuery()).events.map(\.event)
        #expect(events.count == 3, "the events stay, counted")
        for event in events where event.installationID != "bob-phone" {
            #expect(event.userID == nil)
            #expect(event.value == nil)
            #expect(event.attributes == nil)
        }
        #expect(try store.funnel(appID: Fixture.appID, scope: .campaign("c1")) == funnelBefore)

        let plan = try #require(try store.message(appID: Fixture.appID, messageID: "m1")?.plan)
        #expect(plan.contains(Fixture.erasure.pseudonym))
        #expect(plan.contains("bob"))
        #expect(!plan.contains(Fixture.userID))

        let audit = try store.auditEntries(beforeSequence: nil, limit: 10).map(\.target).sorted()
        #expect(
            audit == [
                "/v1/users/bob/tags", "/v1/users/\(Fixture.erasure.pseudonym)/export",
                "/v1/users/\(Fixture.erasure.pseudonym)/tags",
            ])

        #expect(
            try store.userErasedAt(appID: Fixture.appID, digest: Fixture.erasure.digest) == Fixture.erasure.erasedAt)
        #expect(try store.userErasedAt(appID: Fixture.appID, digest: Array(repeating: 1, count: 32)) == nil)

        for forwarder in ["fwd_hook", "fwd_file"] {
            let notices = try store.erasureNotices(forwarderID: forwarder, limit: 10)
            #expect(notices.map(\.userID) == [Fixture.userID])
            #expect(notices.map(\.pseudonym) == [Fixture.erasure.pseudonym])
            #expect(notices.first?.id.contains(Fixture.userID) == false)
        }
        let hook = try store.erasureNotices(forwarderID: "fwd_hook", limit: 10).map(\.id)
        #expect(try store.removeErasureNotices(forwarderID: "fwd_file", ids: hook) == 0, "another forwarder's")
        #expect(try store.removeErasureNotices(forwarderID: "fwd_hook", ids: hook) == 1)
        #expect(try store.erasureNotices(forwarderID: "fwd_hook", limit: 10).isEmpty)
        #expect(try store.erasureNotices(forwarderID: "fwd_file", limit: 10).count == 1)
        #expect(try store.removeForwarder(appID: Fixture.appID, id: "fwd_file"), "its notices go with it")

        // Again: nothing is left to change, the tombstone moves to the new time, and a new notice is queued.
        var again = Fixture.erasure
        again.erasedAt += 1000
        #expect(
            try store.eraseUser(again)
                == ForgottenUser(
                    installations: 0, tags: 0, events: 0, messages: 0, auditEntries: 0, forwarderNotices: 1))
        #expect(try store.userErasedAt(appID: Fixture.appID, digest: Fixture.erasure.digest) == again.erasedAt)
    }

    @Test(arguments: StoreBackend.allCases)
    func theErasureKeyIsStoredOnceAndKeptForever(_ backend: StoreBackend) throws {
        let store = try backend.makeStore()
        try Fixture.populate(store)
        #expect(try store.erasureKey(appID: Fixture.appID, proposed: nil, now: Fixture.now) == nil)
        let first = Array(repeating: UInt8(7), count: 32)
        #expect(try store.erasureKey(appID: Fixture.appID, proposed: first, now: Fixture.now) == first)
        #expect(
            try store.erasureKey(appID: Fixture.appID, proposed: Array(repeating: 9, count: 32), now: Fixture.now)
                == first)
        #expect(try store.erasureKey(appID: Fixture.appID, proposed: nil, now: Fixture.now) == first)
        let unknown = #expect(throws: StoreError.self) {
            try store.erasureKey(appID: "app_missing", proposed: first, now: Fixture.now)
        }
        #expect(unknown?.code == .notFound)
    }

    /// Every table and column, then the database file and its log as bytes: after the erasure the person is
    /// only in the forwarders' queue (the notices), and once those are delivered, nowhere.
    @Test func onSQLiteTheErasedPersonIsInNoTableAndNoByteOfTheFiles() throws {
        let directory = StoreBackend.root.appendingPathComponent(UUID().uuidString)
        let store = try SQLiteStore(directory: directory)
        try Fixture.populate(store)
        let path = directory.appendingPathComponent(SQLiteStore.fileName).path
        #expect(!Self.occurrences(path: path).isEmpty, "the search finds the person before the erasure")

        _ = try store.eraseUser(Fixture.erasure)
        let queued = Self.occurrences(path: path).filter { !$0.hasPrefix("\(Fixture.userID) in erasure_notices.") }
        #expect(queued.filter { !$0.contains(" in file ") } == [], "only the forwarders' notices hold the id")

        for forwarder in ["fwd_hook", "fwd_file"] {
            let ids = try store.erasureNotices(forwarderID: forwarder, limit: 10).map(\.id)
            try store.removeErasureNotices(forwarderID: forwarder, ids: ids)
        }
        #expect(Self.occurrences(path: path) == [])
    }

    /// Where the fixture's personal values occur: in each column of each table (read through a connection of
    /// its own), and in the raw bytes of the database file and its write-ahead log.
    static func occurrences(path: String) -> [String] {
        var haystack: [(place: String, bytes: [UInt8])] = []
        do {
            let database = try SQLiteDatabase(path: path)
            try database.read { db in
                let tables = try db.query("SELECT name FROM sqlite_master WHERE type = 'table'") { $0.text(at: 0) }
                for table in tables {
                    let columns = try db.query("SELECT name FROM pragma_table_info(?1)", [.text(table)]) {
                        $0.text(at: 0)
                    }
                    for column in columns {
                        let values = try db.query("SELECT CAST(\"\(column)\" AS BLOB) FROM \"\(table)\"") {
                            $0.blob(at: 0)
                        }
                        haystack.append(("\(table).\(column)", values.flatMap { $0 + [0] }))
                    }
                }
            }
        } catch {
            return ["the search failed: \(error)"]
        }
        for file in [path, path + "-wal"] {
            if let data = FileManager.default.contents(atPath: file) { haystack.append(("file \(file)", Array(data))) }
        }
        return ErasureFixture.occurrences(of: ErasureFixture.personal, in: haystack)
    }
}
