import Foundation
import Testing
import TidingsModel
import TidingsStore
import TidingsStoreTesting

/// Forwarders, their leases, cursors, backfills and dead letters, on every backend.
@Suite struct ForwardingStoreTests {
    static let now: Int64 = 1_800_000_000_000

    func makeStore(_ backend: StoreBackend) throws -> any Store {
        let store = try backend.makeStore()
        for id in ["app_a", "app_b"] {
            try store.createApp(
                AppRecord(id: id, name: "name-\(id)", bundleID: "com.example.\(id)", createdAt: Self.now))
        }
        return store
    }

    func forwarder(_ id: String, app: String = "app_a", kind: ForwarderRecord.Kind = .webhook) -> ForwarderRecord {
        ForwarderRecord(
            id: id, appID: app, kind: kind,
            settings: ["url": "https://example.com/hook", "secret": "whsec_0123456789abcdef01234567"],
            filter: ForwarderRecord.Filter(eventTypes: ["open"], campaigns: ["spring"], droppedFields: ["user_id"]),
            createdAt: Self.now)
    }

    func events(_ count: Int, installation: String = "inst-1") -> [TidingsEvent] {
        (0..<count).map { index in
            TidingsEvent(type: .open, occurredAt: Self.now + Int64(index), installationID: installation)
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func forwardersRoundTripPerAppAndRefuseDuplicatesAndUnknownApps(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        let record = forwarder("fwd_1")
        try store.createForwarder(record)
        try store.createForwarder(forwarder("fwd_2", app: "app_b", kind: .file))
        #expect(try store.forwarder(appID: "app_a", id: "fwd_1") == record)
        #expect(try store.forwarder(appID: "app_b", id: "fwd_1") == nil)
        #expect(try store.forwarders(appID: "app_a").map(\.id) == ["fwd_1"])
        #expect(try store.forwarders(appID: nil).map(\.id).sorted() == ["fwd_1", "fwd_2"])
        let duplicate = #expect(throws: StoreError.self) { try store.createForwarder(record) }
        #expect(duplicate?.code == .conflict)
        let unknown = #expect(throws: StoreError.self) { try store.createForwarder(forwarder("fwd_3", app: "app_x")) }
        #expect(unknown?.code == .notFound)

        #expect(try store.setForwarderState(appID: "app_a", id: "fwd_1", state: .paused).state == .paused)
        let missing = #expect(throws: StoreError.self) {
            try store.setForwarderState(appID: "app_b", id: "fwd_1", state: .paused)
        }
        #expect(missing?.code == .notFound)
        #expect(try store.removeForwarder(appID: "app_b", id: "fwd_1") == false)
        #expect(try store.removeForwarder(appID: "app_a", id: "fwd_1"))
        #expect(try store.forwarder(appID: "app_a", id: "fwd_1") == nil)
    }

    @Test(arguments: StoreBackend.allCases)
    func onlyTheLeaseHolderMovesTheCursorAndItNeverMovesBack(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        try store.createForwarder(forwarder("fwd_1"))
        #expect(try store.acquireForwarderLease(id: "fwd_1", owner: "one", now: Self.now, until: Self.now + 30_000))
        #expect(try !store.acquireForwarderLease(id: "fwd_1", owner: "two", now: Self.now + 1, until: Self.now + 9))
        #expect(try !store.advanceForwarderCursor(id: "fwd_1", owner: "two", to: 5, now: Self.now))
        try store.recordForwarderFailure(id: "fwd_1", at: Self.now + 10, message: "HTTP 500")
        try store.recordForwarderFailure(id: "fwd_1", at: Self.now + 20, message: "HTTP 503")
        var stored = try #require(try store.forwarder(appID: "app_a", id: "fwd_1"))
        #expect(stored.failingSince == Self.now + 10)
        #expect(stored.lastError == "HTTP 503")

        #expect(try store.advanceForwarderCursor(id: "fwd_1", owner: "one", to: 7, now: Self.now + 30))
        #expect(try store.advanceForwarderCursor(id: "fwd_1", owner: "one", to: 3, now: Self.now + 31))
        stored = try #require(try store.forwarder(appID: "app_a", id: "fwd_1"))
        #expect(stored.cursor == 7)
        #expect(stored.failingSince == nil && stored.lastError == nil)
        #expect(stored.lastSuccessAt == Self.now + 31)

        // An expired lease goes to whoever asks; a released one at once.
        #expect(
            try store.acquireForwarderLease(id: "fwd_1", owner: "two", now: Self.now + 30_001, until: Self.now + 60_000)
        )
        try store.releaseForwarderLease(id: "fwd_1", owner: "two")
        #expect(
            try store.acquireForwarderLease(id: "fwd_1", owner: "one", now: Self.now + 30_002, until: Self.now + 60_000)
        )
    }

    @Test(arguments: StoreBackend.allCases)
    func deadLettersParkMoveTheCursorReplayAndPurge(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        try store.createForwarder(forwarder("fwd_1"))
        let letter = DeadLetterRecord(
            id: "dl_1", forwarderID: "fwd_1", appID: "app_a", firstSequence: 3, lastSequence: 9, eventCount: 4,
            status: 400, error: "bad row", createdAt: Self.now, updatedAt: Self.now)
        #expect(try !store.parkDeadLetter(letter, owner: "nobody", advancesCursor: true))
        #expect(try store.deadLetters(appID: "app_a", forwarderID: "fwd_1").isEmpty)
        _ = try store.acquireForwarderLease(id: "fwd_1", owner: "one", now: Self.now, until: Self.now + 30_000)
        #expect(try store.parkDeadLetter(letter, owner: "one", advancesCursor: true))
        var second = letter
        second.id = "dl_2"
        second.firstSequence = 10
        second.lastSequence = 12
        #expect(try store.parkDeadLetter(second, owner: "one", advancesCursor: false))
        #expect(try store.forwarder(appID: "app_a", id: "fwd_1")?.cursor == 9)
        #expect(try store.deadLetters(appID: "app_a", forwarderID: "fwd_1").map(\.id) == ["dl_1", "dl_2"])
        #expect(try store.deadLetters(appID: "app_b", forwarderID: "fwd_1").isEmpty)

        #expect(
            try store.requestDeadLetterReplay(appID: "app_a", forwarderID: "fwd_1", ids: ["dl_2"], now: Self.now) == 1)
        #expect(try store.requestDeadLetterReplay(appID: "app_b", forwarderID: "fwd_1", ids: nil, now: Self.now) == 0)
        #expect(try store.deadLetters(appID: "app_a", forwarderID: "fwd_1").map(\.state) == [.parked, .replaying])
        try store.finishDeadLetterReplay(
            id: "dl_2", delivered: false, status: 422, error: "still bad", now: Self.now + 5)
        let replayed = try #require(try store.deadLetters(appID: "app_a", forwarderID: "fwd_1").last)
        #expect(replayed.state == .parked && replayed.attempts == 2 && replayed.status == 422)
        #expect(replayed.error == "still bad" && replayed.updatedAt == Self.now + 5)
        try store.finishDeadLetterReplay(id: "dl_2", delivered: true, status: nil, error: "", now: Self.now + 6)
        #expect(try store.deadLetters(appID: "app_a", forwarderID: "fwd_1").map(\.id) == ["dl_1"])
        #expect(try store.purgeDeadLetters(appID: "app_a", forwarderID: "fwd_1", ids: ["dl_missing"]) == 0)
        #expect(try store.purgeDeadLetters(appID: "app_a", forwarderID: "fwd_1", ids: nil) == 1)
        #expect(try store.deadLetters(appID: "app_a", forwarderID: "fwd_1").isEmpty)
    }

    @Test(arguments: StoreBackend.allCases)
    func backfillsRunAndEndAndRemovalTakesTheDeadLetters(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        try store.createForwarder(forwarder("fwd_1"))
        let started = try store.startForwarderBackfill(appID: "app_a", id: "fwd_1", since: 10, until: 20)
        #expect(started.backfill == ForwarderRecord.Backfill(since: 10, until: 20, cursor: 0))
        _ = try store.acquireForwarderLease(id: "fwd_1", owner: "one", now: Self.now, until: Self.now + 30_000)
        #expect(try !store.advanceForwarderBackfill(id: "fwd_1", owner: "two", to: 4))
        #expect(try store.advanceForwarderBackfill(id: "fwd_1", owner: "one", to: 4))
        #expect(try store.forwarder(appID: "app_a", id: "fwd_1")?.backfill?.cursor == 4)
        #expect(try store.advanceForwarderBackfill(id: "fwd_1", owner: "one", to: nil))
        #expect(try store.forwarder(appID: "app_a", id: "fwd_1")?.backfill == nil)
        let missing = #expect(throws: StoreError.self) {
            try store.startForwarderBackfill(appID: "app_b", id: "fwd_1", since: 1, until: 2)
        }
        #expect(missing?.code == .notFound)

        let letter = DeadLetterRecord(
            id: "dl_1", forwarderID: "fwd_1", appID: "app_a", firstSequence: 1, lastSequence: 2, eventCount: 2,
            status: nil, error: "x", createdAt: Self.now, updatedAt: Self.now)
        try store.parkDeadLetter(letter, owner: "one", advancesCursor: false)
        #expect(try store.removeForwarder(appID: "app_a", id: "fwd_1"))
        #expect(try store.deadLetters(appID: "app_a", forwarderID: "fwd_1").isEmpty)
    }

    @Test(arguments: StoreBackend.allCases)
    func latestSequenceAndBacklogCountOnlyTheAppsEvents(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        #expect(try store.latestEventSequence(appID: "app_a") == 0)
        #expect(try store.eventBacklog(appID: "app_a", afterSequence: 0).count == 0)
        _ = try store.insertEvents(appID: "app_a", events: events(3), receivedAt: Self.now)
        _ = try store.insertEvents(appID: "app_b", events: events(2), receivedAt: Self.now + 1)
        _ = try store.insertEvents(appID: "app_a", events: events(2, installation: "inst-2"), receivedAt: Self.now + 2)
        let stored = try store.events(appID: "app_a", query: EventQuery(limit: 10)).events
        #expect(stored.count == 5)
        #expect(try store.latestEventSequence(appID: "app_a") == stored.last?.sequence)
        let backlog = try store.eventBacklog(appID: "app_a", afterSequence: stored[1].sequence)
        #expect(backlog.count == 3)
        #expect(backlog.oldestReceivedAt == Self.now)
        #expect(try store.eventBacklog(appID: "app_a", afterSequence: stored[4].sequence).count == 0)
        #expect(store.eventVisibilityDelay == (backend == .sqlite ? 0 : 5_000))
    }

    @Test(arguments: StoreBackend.allCases)
    func forwardingPagesHoldTheAppsEventsAsStoredInOrderAndSayHowFarTheyLooked(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        let detailed = TidingsEvent(
            type: .linkOpen, occurredAt: Self.now + 50, installationID: "inst-9", platform: "android",
            sdkVersion: "2.1.0", userID: "user-\"quoted\"", messageID: "msg_1", campaignID: "spring",
            value: "https://example.com/p?a=1", token: "fcm-1", tokenType: .fcm,
            attributes: ["size": .integer(3), "colour": .string("red")])
        _ = try store.insertEvents(appID: "app_a", events: events(3), receivedAt: Self.now)
        _ = try store.insertEvents(appID: "app_b", events: events(2), receivedAt: Self.now + 1)
        _ = try store.insertEvents(
            appID: "app_a", events: events(2, installation: "inst-2") + [detailed], receivedAt: Self.now + 2)
        let stored = try store.events(appID: "app_a", query: EventQuery(limit: 10)).events
        #expect(stored.count == 6)

        // Every row is the stored event's columns, untouched; other apps' events never appear.
        let all = try store.forwardingEvents(appID: "app_a", query: ForwardingEventQuery(afterSequence: 0, limit: 10))
        #expect(all.rows == stored.map(ForwardingEventRow.init))
        #expect(all.rows.last?.attributesJSON == #"{"colour":"red","size":3}"#)
        #expect(all.rows.last?.eventID == detailed.eventID.lowercasedString)
        #expect(all.reachedEnd && all.scannedThrough >= stored[5].sequence)

        // A full page stops at its last row and says there may be more.
        let first = try store.forwardingEvents(appID: "app_a", query: ForwardingEventQuery(afterSequence: 0, limit: 2))
        #expect(first.rows.map(\.sequence) == stored[0..<2].map(\.sequence))
        #expect(first.scannedThrough == stored[1].sequence && !first.reachedEnd)
        let next = try store.forwardingEvents(
            appID: "app_a", query: ForwardingEventQuery(afterSequence: first.scannedThrough, limit: 3))
        #expect(next.rows.map(\.sequence) == stored[2..<5].map(\.sequence))

        // A range of sequence numbers (a dead letter's) and of occurred_at (a backfill's).
        let range = try store.forwardingEvents(
            appID: "app_a",
            query: ForwardingEventQuery(
                afterSequence: stored[0].sequence, throughSequence: stored[3].sequence, limit: 10))
        #expect(range.rows.map(\.sequence) == stored[1...3].map(\.sequence) && range.reachedEnd)
        let occurred = try store.forwardingEvents(
            appID: "app_a",
            query: ForwardingEventQuery(
                afterSequence: 0, occurredSince: Self.now + 1, occurredUntil: Self.now + 2, limit: 10))
        #expect(occurred.rows.map(\.sequence) == [stored[1].sequence, stored[4].sequence])

        // Past the newest event: nothing, and the cursor stays where it is.
        let end = try store.forwardingEvents(
            appID: "app_a", query: ForwardingEventQuery(afterSequence: all.scannedThrough, limit: 10))
        #expect(end.rows.isEmpty && end.reachedEnd && end.scannedThrough == all.scannedThrough)
        // An app with no events after the cursor never reads another app's.
        let other = try store.forwardingEvents(
            appID: "app_b", query: ForwardingEventQuery(afterSequence: stored[5].sequence, limit: 10))
        #expect(other.rows.isEmpty && other.reachedEnd)
    }

    @Test(arguments: StoreBackend.allCases)
    func aPagesRefusedBatchesAreParkedTogetherWithTheCursorMove(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        try store.createForwarder(forwarder("fwd_1"))
        try store.createForwarder(forwarder("fwd_2"))
        func letter(_ id: String, _ first: Int64, _ last: Int64, forwarder: String = "fwd_1") -> DeadLetterRecord {
            DeadLetterRecord(
                id: id, forwarderID: forwarder, appID: "app_a", firstSequence: first, lastSequence: last, eventCount: 2,
                status: 422, error: "bad row", createdAt: Self.now, updatedAt: Self.now)
        }
        let letters = [letter("dl_1", 3, 9), letter("dl_2", 4, 8)]
        #expect(try !store.parkDeadLetters(letters, forwarderID: "fwd_1", owner: "nobody", movingCursorTo: 12))
        #expect(try store.deadLetters(appID: "app_a", forwarderID: "fwd_1").isEmpty)
        _ = try store.acquireForwarderLease(id: "fwd_1", owner: "one", now: Self.now, until: Self.now + 30_000)
        let stranger = #expect(throws: StoreError.self) {
            try store.parkDeadLetters(
                [letter("dl_3", 1, 2, forwarder: "fwd_2")], forwarderID: "fwd_1", owner: "one", movingCursorTo: nil)
        }
        #expect(stranger?.code == .conflict)
        #expect(try store.parkDeadLetters(letters, forwarderID: "fwd_1", owner: "one", movingCursorTo: 12))
        #expect(try store.forwarder(appID: "app_a", id: "fwd_1")?.cursor == 12)
        #expect(try store.deadLetters(appID: "app_a", forwarderID: "fwd_1").map(\.id).sorted() == ["dl_1", "dl_2"])
        // The cursor never moves back, and without a sequence it stays.
        #expect(
            try store.parkDeadLetters([letter("dl_4", 1, 2)], forwarderID: "fwd_1", owner: "one", movingCursorTo: 5))
        #expect(try store.parkDeadLetters([], forwarderID: "fwd_1", owner: "one", movingCursorTo: nil))
        #expect(try store.forwarder(appID: "app_a", id: "fwd_1")?.cursor == 12)
        #expect(try store.deadLetters(appID: "app_a", forwarderID: "fwd_1").count == 3)
    }

    @Test(arguments: StoreBackend.allCases)
    func readingOnFromWhereEachPageLookedFindsExactlyTheAppsEventsAmongManyOfAnotherApp(_ backend: StoreBackend)
        throws
    {
        let store = try makeStore(backend)
        // More of the other app's events between two of this app's than one read scans on SQLite.
        _ = try store.insertEvents(appID: "app_a", events: events(2), receivedAt: Self.now)
        let other = (0..<21_000).map { index in
            TidingsEvent(type: .open, occurredAt: Self.now + Int64(index), installationID: "inst-b")
        }
        _ = try store.insertEvents(appID: "app_b", events: other, receivedAt: Self.now)
        _ = try store.insertEvents(appID: "app_a", events: events(3, installation: "inst-2"), receivedAt: Self.now)
        let stored = try store.events(appID: "app_a", query: EventQuery(limit: 10)).events.map(\.sequence)
        var cursor: Int64 = 0
        var read: [Int64] = []
        var reads = 0
        while true {
            let page = try store.forwardingEvents(
                appID: "app_a", query: ForwardingEventQuery(afterSequence: cursor, limit: 2))
            #expect(page.scannedThrough >= cursor)
            read += page.rows.map(\.sequence)
            cursor = page.scannedThrough
            reads += 1
            if page.reachedEnd || reads > 20 { break }
        }
        #expect(read == stored)
        #expect(cursor >= stored.last ?? 0)
    }
}
