import Foundation
import Testing
import Tidings

@Suite struct BadgeTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var instruction: BadgeInstruction
        var counter: Int
        var expected: BadgeUpdate
        var testDescription: String { "\(instruction) from \(counter)" }
    }

    @Test(arguments: [
        Row(instruction: .none, counter: 3, expected: .leave),
        Row(instruction: .set(5), counter: 3, expected: .set(5)),
        Row(instruction: .set(-2), counter: 3, expected: .set(0)),
        Row(instruction: .clear, counter: 3, expected: .set(0)),
        Row(instruction: .increment(1), counter: 3, expected: .set(4)),
        Row(instruction: .increment(2), counter: 0, expected: .set(2)),
        Row(instruction: .increment(-1), counter: 3, expected: .set(3)),
        Row(instruction: .increment(1), counter: Int.max, expected: .set(Int.max)),
    ])
    func semantics(_ row: Row) {
        #expect(BadgePolicy().update(for: row.instruction, counter: row.counter) == row.expected)
    }

    @Test(arguments: [BadgeInstruction.none, .set(5), .clear, .increment(1)])
    func updatesOffNeverTouchTheBadge(instruction: BadgeInstruction) {
        let policy = BadgePolicy(updatesEnabled: false, followsInboxUnreadCount: true, clearsOnLaunch: true)
        #expect(policy.update(for: instruction, counter: 3, inboxUnread: 7) == .leave)
        #expect(policy.launchUpdate(inboxUnread: 7) == .leave)
    }

    @Test(arguments: [BadgeInstruction.none, .set(5), .clear, .increment(1)])
    func badgeFollowsTheInboxWhenConfigured(instruction: BadgeInstruction) {
        let policy = BadgePolicy(followsInboxUnreadCount: true)
        #expect(policy.update(for: instruction, counter: 3, inboxUnread: 7) == .set(7))
        #expect(policy.launchUpdate(inboxUnread: 2) == .set(2))
    }

    @Test func launchNeverClearsUnlessConfigured() {
        #expect(BadgePolicy().launchUpdate() == .leave)
        #expect(BadgePolicy(clearsOnLaunch: true).launchUpdate() == .set(0))
    }

    @Test func counterIncrementsFromTheSharedValue() throws {
        let file = InboxTestDatabase()
        let counter = try BadgeCounter(database: try file.open())
        #expect(try counter.current() == 0)
        #expect(try counter.apply(.increment(1)) == .set(1))
        #expect(try counter.apply(.increment(2)) == .set(3))
        #expect(try counter.apply(.none) == .leave)
        #expect(try counter.current() == 3)
        #expect(try counter.apply(.set(10)) == .set(10))
        #expect(try counter.apply(.clear) == .set(0))
        try counter.record(4)
        #expect(try counter.apply(.increment(1)) == .set(5))
    }

    @Test func launchClearWhenConfiguredResetsTheCounter() throws {
        let file = InboxTestDatabase()
        let counter = try BadgeCounter(database: try file.open(), policy: BadgePolicy(clearsOnLaunch: true))
        _ = try counter.apply(.increment(3))
        #expect(try counter.launch() == .set(0))
        #expect(try counter.current() == 0)
        let keeping = try BadgeCounter(database: try file.open())
        _ = try keeping.apply(.increment(3))
        #expect(try keeping.launch() == .leave)
        #expect(try keeping.current() == 3)
    }

    @Test func badgeFollowsTheInboxSharingOneDatabase() throws {
        let file = InboxTestDatabase()
        let database = try file.open()
        let inbox = try Inbox(database: database)
        let counter = try BadgeCounter(database: database, policy: BadgePolicy(followsInboxUnreadCount: true))
        try inbox.add(InboxFixtures.payload("m1"))
        try inbox.add(InboxFixtures.payload("m2"))
        #expect(try counter.apply(.increment(1), inboxUnread: try inbox.unreadCount()) == .set(2))
        try inbox.markAllRead()
        #expect(try counter.launch(inboxUnread: try inbox.unreadCount()) == .set(0))
        #expect(try counter.current() == 0)
    }

    @Test func incrementsFromTwoConnectionsAreNeverLost() async throws {
        let file = InboxTestDatabase()
        let app = try BadgeCounter(database: try file.open())
        let serviceExtension = try BadgeCounter(database: try file.open())
        await withTaskGroup(of: Void.self) { group in
            for counter in [app, serviceExtension] {
                group.addTask { for _ in 0..<40 { _ = try? counter.apply(.increment(1)) } }
            }
        }
        #expect(try app.current() == 80)
    }
}
