import Foundation
import Testing
import Tidings
import TidingsSQLite
import TidingsTesting

@Suite struct InboxTests {
    let file = InboxTestDatabase()
    let clock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000))

    func inbox(capacity: Int = 200) throws -> Inbox {
        var configuration = Inbox.Configuration()
        configuration.capacity = capacity
        return try Inbox(database: try file.open(), clock: clock, configuration: configuration)
    }

    @Test func addedEntryKeepsTextActionAndPayload() throws {
        let inbox = try inbox()
        let payload = InboxFixtures.payload("m1", title: "Sale")
        #expect(try inbox.add(payload))
        let entry = try #require(try inbox.list().first)
        #expect(entry.id == "m1")
        #expect(entry.title == "Sale")
        #expect(entry.body == "body of m1")
        #expect(entry.receivedAt == clock.now)
        #expect(!entry.isRead)
        #expect(entry.action == .deepLink(url: "myapp://m/m1"))
        #expect(entry.payload.messageID == "m1")
    }

    @Test func addingTheSameMessageTwiceKeepsOneEntryAndItsReadFlag() throws {
        let inbox = try inbox()
        #expect(try inbox.add(InboxFixtures.payload("m1")))
        try inbox.markRead(id: "m1")
        #expect(try inbox.add(InboxFixtures.payload("m1", title: "again")) == false)
        let entries = try inbox.list()
        #expect(entries.count == 1)
        #expect(entries.first?.isRead == true)
        #expect(entries.first?.title == "T")
    }

    @Test func entryByID() throws {
        let inbox = try inbox()
        try inbox.add(InboxFixtures.payload("m1", expiresAt: clock.now.addingTimeInterval(5)))
        #expect(try inbox.entry(id: "m1")?.expiresAt == clock.now.addingTimeInterval(5))
        #expect(try inbox.entry(id: "nope") == nil)
    }

    @Test func payloadWithoutMessageIDIsRejected() throws {
        let inbox = try inbox()
        #expect(throws: InboxError(code: .missingMessageID, message: "an inbox entry needs the payload's message id")) {
            try inbox.add(InboxFixtures.payload(nil))
        }
    }

    @Test func acceptsOnlyInboxPayloadsWithAnIDThatAreNotInternal() {
        #expect(Inbox.accepts(InboxFixtures.payload("m")))
        #expect(!Inbox.accepts(PushPayload(messageID: "m")))
        #expect(!Inbox.accepts(InboxFixtures.payload(nil)))
        var internalPush = InboxFixtures.payload("m")
        internalPush.isInternal = true
        #expect(!Inbox.accepts(internalPush))
    }

    @Test func listIsNewestFirstAndHonoursTheLimit() throws {
        let inbox = try inbox()
        for index in 1...3 {
            try inbox.add(InboxFixtures.payload("m\(index)"))
            clock.advance(by: .seconds(1))
        }
        #expect(try inbox.list().map(\.id) == ["m3", "m2", "m1"])
        #expect(try inbox.list(limit: 2).map(\.id) == ["m3", "m2"])
    }

    @Test func unreadCountAndMarkRead() throws {
        let inbox = try inbox()
        for index in 1...3 { try inbox.add(InboxFixtures.payload("m\(index)")) }
        #expect(try inbox.unreadCount() == 3)
        #expect(try inbox.markRead(id: "m2"))
        #expect(try inbox.markRead(id: "missing") == false)
        #expect(try inbox.unreadCount() == 2)
        #expect(try inbox.markAllRead() == 2)
        #expect(try inbox.unreadCount() == 0)
    }

    @Test func deleteRemovesOneEntry() throws {
        let inbox = try inbox()
        try inbox.add(InboxFixtures.payload("m1"))
        try inbox.add(InboxFixtures.payload("m2"))
        #expect(try inbox.delete(id: "m1"))
        #expect(try inbox.delete(id: "m1") == false)
        #expect(try inbox.list().map(\.id) == ["m2"])
    }

    @Test func expiredEntriesAreHiddenThenPurged() throws {
        let inbox = try inbox()
        try inbox.add(InboxFixtures.payload("short", expiresAt: clock.now.addingTimeInterval(60)))
        try inbox.add(InboxFixtures.payload("forever"))
        #expect(try inbox.unreadCount() == 2)
        clock.advance(by: .seconds(60))
        #expect(try inbox.list().map(\.id) == ["forever"])
        #expect(try inbox.unreadCount() == 1)
        #expect(try inbox.count() == 2)
        #expect(try inbox.purgeExpired() == 1)
        #expect(try inbox.count() == 1)
    }

    @Test func alreadyExpiredPayloadIsNotAdded() throws {
        let inbox = try inbox()
        #expect(try inbox.add(InboxFixtures.payload("old", expiresAt: clock.now)) == false)
        #expect(try inbox.count() == 0)
    }

    @Test func capDropsTheOldest() throws {
        let inbox = try inbox(capacity: 3)
        for index in 1...5 {
            try inbox.add(InboxFixtures.payload("m\(index)"))
            clock.advance(by: .seconds(1))
        }
        #expect(try inbox.count() == 3)
        #expect(try inbox.list().map(\.id) == ["m5", "m4", "m3"])
    }

    @Test func vendorDialectSurvivesTheRoundTrip() throws {
        let inbox = try inbox()
        var payload = InboxFixtures.payload("moe")
        payload.dialect = .moengage
        try inbox.add(payload)
        #expect(try inbox.list().first?.payload.dialect == .moengage)
    }

    @Test func corruptStoredPayloadIsReportedAsATypedError() throws {
        let database = try file.open()
        let inbox = try Inbox(database: database, clock: clock)
        try inbox.add(InboxFixtures.payload("m1"))
        try database.write { db in try db.run("UPDATE tidings_inbox SET payload = '{broken'") }
        #expect {
            try inbox.list()
        } throws: { error in
            (error as? InboxError)?.code == .corruptEntry
        }
    }

    @Test func twoConnectionsWritingAtOnceLoseNothing() async throws {
        let appInbox = try inbox()
        let extensionInbox = try inbox()
        await withTaskGroup(of: Void.self) { group in
            for (name, inbox) in [("app", appInbox), ("ext", extensionInbox)] {
                group.addTask {
                    for index in 0..<50 { _ = try? inbox.add(InboxFixtures.payload("\(name)-\(index)")) }
                }
            }
        }
        #expect(try appInbox.count() == 100)
        #expect(try extensionInbox.unreadCount() == 100)
    }
}
