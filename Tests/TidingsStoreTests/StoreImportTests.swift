import Foundation
import Testing
import TidingsModel
import TidingsStore
import TidingsStoreTesting

/// ``ImportStore`` on every backend: a batch is written with its cursor, a batch sent again skips what is
/// done, a re-run under another import changes nothing, a dry run writes nothing, and a refused row leaves
/// nothing behind.
@Suite struct StoreImportTests {
    static let appID = "app_import"

    static func store(_ backend: StoreBackend) throws -> any Store {
        let store = try backend.makeStore()
        try store.createApp(AppRecord(id: appID, name: "import", bundleID: "com.example.import", createdAt: 1))
        return store
    }

    static func row(_ number: Int, user: String? = nil, tags: Set<String> = [], digest: [UInt8]? = nil) -> ImportRow {
        var update = InstallationUpdate()
        update.fcmToken = .set("token-\(number)")
        update.userID = .set(user)
        update.attributes = ["rank": .number(Double(number))]
        return ImportRow(
            number: number, items: [ImportRow.Item(installationID: "i-\(number)", update: update)], userID: user,
            userDigest: digest, tags: tags)
    }

    static func batch(
        _ rows: [ImportRow], importID: String = "imp", firstRow: Int = 1, count: Int? = nil, refused: [Int] = [],
        dryRun: Bool = false, now: Int64 = 1000
    ) -> ImportBatch {
        ImportBatch(
            appID: appID, importID: importID, profile: "native", firstRow: firstRow,
            rowCount: count ?? rows.count + refused.count, rows: rows, rejectedBeforeStore: refused, dryRun: dryRun,
            now: now)
    }

    @Test(arguments: StoreBackend.allCases)
    func aBatchIsWrittenWithItsCursorAndSkippedWhenSentAgain(_ backend: StoreBackend) throws {
        let store = try Self.store(backend)
        let rows = [Self.row(1, user: "u1", tags: ["vip"]), Self.row(2), Self.row(4)]
        let first = try store.importBatch(Self.batch(rows, refused: [3]))
        #expect(first.outcomes == [1: .imported, 2: .imported, 4: .imported])
        #expect(first.progress.rowsDone == 4)
        #expect(first.progress.imported == 3)
        #expect(first.progress.rejected == 1)
        #expect(try store.tags(appID: Self.appID, userID: "u1") == ["vip"])
        #expect(try store.installation(appID: Self.appID, installationID: "i-2")?.fcmToken == "token-2")

        let again = try store.importBatch(Self.batch(rows, refused: [3]))
        #expect(again.skipped == 4)
        #expect(again.outcomes.isEmpty)
        #expect(again.progress == first.progress)
        #expect(try store.importProgress(appID: Self.appID, importID: "imp")?.rowsDone == 4)

        #expect(throws: StoreError.self) { try store.importBatch(Self.batch([Self.row(9)], firstRow: 9)) }
        let overlapping = try store.importBatch(Self.batch([Self.row(4), Self.row(5)], firstRow: 4))
        #expect(overlapping.skipped == 1)
        #expect(overlapping.outcomes == [5: .imported])
    }

    @Test(arguments: StoreBackend.allCases)
    func theSameRowsUnderAnotherImportAreUnchangedAndAChangeIsAnUpdate(_ backend: StoreBackend) throws {
        let store = try Self.store(backend)
        let rows = [Self.row(1, user: "u1", tags: ["vip"]), Self.row(2)]
        _ = try store.importBatch(Self.batch(rows, importID: "a"))
        let before = try store.installation(appID: Self.appID, installationID: "i-1")
        let rerun = try store.importBatch(Self.batch(rows, importID: "b", now: 5000))
        #expect(rerun.outcomes == [1: .unchanged, 2: .unchanged])
        #expect(try store.installation(appID: Self.appID, installationID: "i-1") == before, "not even updated_at")
        var changed = Self.row(2)
        changed.items[0].update.timezone = .set("Asia/Tokyo")
        let update = try store.importBatch(
            Self.batch([Self.row(1, user: "u1", tags: ["new"]), changed], importID: "c"))
        #expect(update.outcomes == [1: .updated, 2: .updated])
        #expect(try store.tags(appID: Self.appID, userID: "u1") == ["new", "vip"])
    }

    @Test(arguments: StoreBackend.allCases)
    func aDryRunAnswersAndWritesNothing(_ backend: StoreBackend) throws {
        let store = try Self.store(backend)
        let result = try store.importBatch(Self.batch([Self.row(1, user: "u1", tags: ["vip"])], dryRun: true))
        #expect(result.outcomes == [1: .imported])
        #expect(result.progress.rowsDone == 1)
        #expect(try store.installation(appID: Self.appID, installationID: "i-1") == nil)
        #expect(try store.tags(appID: Self.appID, userID: "u1").isEmpty)
        #expect(try store.importProgress(appID: Self.appID, importID: "imp") == nil)
    }

    @Test(arguments: StoreBackend.allCases)
    func anErasedUsersRowAndARowOverALimitLeaveNothingBehind(_ backend: StoreBackend) throws {
        let store = try Self.store(backend)
        let digest = Array(repeating: UInt8(7), count: 32)
        _ = try store.eraseUser(
            UserErasure(appID: Self.appID, userID: "gone", pseudonym: "erased:x", digest: digest, erasedAt: 10))
        var limits = TagLimits()
        limits.maximumPerUser = 1
        var batch = Self.batch([
            Self.row(1, user: "gone", digest: digest), Self.row(2, user: "u2", tags: ["a", "b"]),
            Self.row(3, user: "u3", tags: ["a"]),
        ])
        batch.tagLimits = limits
        let result = try store.importBatch(batch)
        guard case .rejected(let column, let rule, _)? = result.outcomes[1] else {
            Issue.record("row 1 must be refused")
            return
        }
        #expect(column == "user_id")
        #expect(rule == "user_erased")
        guard case .rejected(_, let tagRule, let message)? = result.outcomes[2] else {
            Issue.record("row 2 must be refused")
            return
        }
        #expect(tagRule == "too_many_tags")
        #expect(message.contains("at most 1"))
        #expect(result.outcomes[3] == .imported)
        for id in ["i-1", "i-2"] {
            #expect(try store.installation(appID: Self.appID, installationID: id) == nil)
        }
        #expect(try store.tags(appID: Self.appID, userID: "u2").isEmpty)
        #expect(result.progress.rejected == 2)
    }
}
