import Foundation
import Testing
import Tidings
import TidingsModel

@Suite struct EventStoreLeaseTests {
    @Test func enqueuedEventsComeBackInOrderWithTheirExactBytes() throws {
        let fixture = try EventStoreFixture()
        let store = try fixture.open()
        let events = (0..<5).map { fixture.event(value: "v\($0)") }
        for event in events { try store.enqueue(event) }
        let lease = try #require(try store.lease(maxEvents: 10, maxBytes: 1 << 20))
        #expect(lease.events.map(\.eventID) == events.map(\.eventID))
        #expect(lease.events.map(\.sequence) == lease.events.map(\.sequence).sorted())
        let decoded = try lease.events.map { try JSONDecoder().decode(TidingsEvent.self, from: Data($0.body)) }
        #expect(decoded == events)
    }

    @Test func leasedRowsAreNotHandedOutTwiceUntilSettled() throws {
        let fixture = try EventStoreFixture()
        let store = try fixture.open()
        try store.enqueue(contentsOf: (0..<6).map { _ in fixture.event() })
        let first = try #require(try store.lease(maxEvents: 4, maxBytes: 1 << 20))
        let second = try #require(try store.lease(maxEvents: 4, maxBytes: 1 << 20))
        #expect(first.events.count == 4)
        #expect(second.events.count == 2)
        #expect(Set(first.events.map(\.eventID)).isDisjoint(with: second.events.map(\.eventID)))
        #expect(try store.lease(maxEvents: 4, maxBytes: 1 << 20) == nil)
        #expect(try store.count() == 6)
    }

    @Test func acknowledgeDeletesOnlyTheNamedEvents() throws {
        let fixture = try EventStoreFixture()
        let store = try fixture.open()
        try store.enqueue(contentsOf: (0..<3).map { _ in fixture.event() })
        let lease = try #require(try store.lease(maxEvents: 3, maxBytes: 1 << 20))
        try store.acknowledge([lease.events[0].eventID, lease.events[2].eventID], lease: lease)
        #expect(try store.count() == 1)
        try store.release(lease)
        let again = try #require(try store.lease(maxEvents: 3, maxBytes: 1 << 20))
        #expect(again.events.map(\.eventID) == [lease.events[1].eventID])
    }

    @Test func rejectDeletesAndCountsByReason() throws {
        let fixture = try EventStoreFixture()
        let store = try fixture.open()
        try store.enqueue(contentsOf: (0..<3).map { _ in fixture.event() })
        let lease = try #require(try store.lease(maxEvents: 3, maxBytes: 1 << 20))
        try store.reject([lease.events[1].eventID], reason: "missing_field", lease: lease)
        let stats = try store.stats()
        #expect(stats.eventCount == 2)
        #expect(stats.dropped["missing_field"] == .init(total: 1, unreported: 1))
    }

    @Test func releaseMakesRowsLeasableAtOnce() throws {
        let fixture = try EventStoreFixture()
        let store = try fixture.open()
        try store.enqueue(fixture.event())
        let lease = try #require(try store.lease(maxEvents: 10, maxBytes: 1 << 20))
        try store.release(lease)
        let again = try #require(try store.lease(maxEvents: 10, maxBytes: 1 << 20))
        #expect(again.events.map(\.eventID) == lease.events.map(\.eventID))
        #expect(again.id != lease.id)
    }

    @Test func releasingOneLeaseLeavesAnotherInPlace() throws {
        let fixture = try EventStoreFixture()
        let store = try fixture.open()
        try store.enqueue(contentsOf: (0..<4).map { _ in fixture.event() })
        let first = try #require(try store.lease(maxEvents: 2, maxBytes: 1 << 20))
        let second = try #require(try store.lease(maxEvents: 2, maxBytes: 1 << 20))
        try store.release(first)
        let again = try #require(try store.lease(maxEvents: 10, maxBytes: 1 << 20))
        #expect(again.events.map(\.eventID) == first.events.map(\.eventID))
        #expect(try store.stats().activeLeases == 2)
        _ = second
    }

    @Test func anExpiredLeaseHandsItsRowsOutAgain() throws {
        let fixture = try EventStoreFixture()
        let store = try fixture.open { $0.leaseDuration = .seconds(60) }
        try store.enqueue(fixture.event())
        let lease = try #require(try store.lease(maxEvents: 10, maxBytes: 1 << 20))
        #expect(lease.expiresAt == fixture.now + 60_000)
        fixture.clock.advance(by: .seconds(59))
        #expect(try store.lease(maxEvents: 10, maxBytes: 1 << 20) == nil)
        #expect(try store.stats().activeLeases == 1)
        fixture.clock.advance(by: .seconds(1))
        let again = try #require(try store.lease(maxEvents: 10, maxBytes: 1 << 20))
        #expect(again.events.map(\.eventID) == lease.events.map(\.eventID))
    }

    @Test func aLeaseTakenInAnotherConnectionIsHonoured() throws {
        let fixture = try EventStoreFixture()
        let app = try fixture.open()
        let extensionStore = try fixture.open()
        try app.enqueue(contentsOf: (0..<4).map { _ in fixture.event() })
        let first = try #require(try app.lease(maxEvents: 2, maxBytes: 1 << 20))
        let second = try #require(try extensionStore.lease(maxEvents: 10, maxBytes: 1 << 20))
        #expect(second.events.count == 2)
        #expect(Set(first.events.map(\.eventID)).isDisjoint(with: second.events.map(\.eventID)))
    }

    @Test func leaseKeepsWithinTheByteBudgetButReturnsAtLeastOneEvent() throws {
        let fixture = try EventStoreFixture()
        let store = try fixture.open()
        try store.enqueue(contentsOf: (0..<5).map { _ in fixture.event(value: String(repeating: "x", count: 1000)) })
        let one = try #require(try store.lease(maxEvents: 5, maxBytes: 10))
        #expect(one.events.count == 1)
        let size = one.events[0].body.count
        // The budget counts the events' own bytes; the envelope is the uploader's to allow for.
        let twoBodies = 2 * size
        let two = try #require(try store.lease(maxEvents: 5, maxBytes: twoBodies))
        #expect(two.events.count == 2)
        #expect(EventBatchBody.make(two.events).count == twoBodies + EventBatchBody.overhead(eventCount: 2))
        #expect(two.events.map(\.sequence) == two.events.map(\.sequence).sorted())
        let short = try #require(try store.lease(maxEvents: 5, maxBytes: twoBodies - 1))
        #expect(short.events.count == 1)
    }

    @Test func leaseRejectsANonPositiveCount() throws {
        let fixture = try EventStoreFixture()
        let store = try fixture.open()
        #expect(throws: EventStoreError.self) { try store.lease(maxEvents: 0, maxBytes: 100) }
    }

    @Test func dropEventsOlderThanCutoffCountsThemAsExpired() throws {
        let fixture = try EventStoreFixture()
        let store = try fixture.open()
        try store.enqueue(fixture.event())
        fixture.clock.advance(by: .seconds(10))
        try store.enqueue(fixture.event())
        #expect(try store.dropEvents(olderThan: fixture.now - 5_000) == 1)
        #expect(try store.count() == 1)
        #expect(try store.stats().dropped[DropReason.expired]?.total == 1)
    }

    @Test func requestBodyIsTheBatchEnvelopeOfTheStoredBytes() throws {
        let fixture = try EventStoreFixture()
        let store = try fixture.open()
        let events = [fixture.event(), fixture.event(.dismiss)]
        try store.enqueue(contentsOf: events)
        let lease = try #require(try store.lease(maxEvents: 10, maxBytes: 1 << 20))
        let body = EventBatchBody.make(lease.events)
        let batch = try JSONDecoder().decode(EventBatch.self, from: Data(body))
        #expect(batch.events == events)
        #expect(EventBatchBody.make([]) == Array(#"{"events":[]}"#.utf8))
    }

    @Test(arguments: [true, false])
    func concurrentEnqueuesKeepEveryEventExactlyOnce(groupCommit: Bool) async throws {
        let fixture = try EventStoreFixture()
        let store = try fixture.open { $0.groupCommit = groupCommit }
        let perTask = 200
        let ids = try await withThrowingTaskGroup(of: [UUID].self) { group in
            for _ in 0..<4 {
                group.addTask {
                    var ids: [UUID] = []
                    for _ in 0..<perTask {
                        let event = fixture.event()
                        try store.enqueue(event)
                        ids.append(event.eventID)
                    }
                    return ids
                }
            }
            return try await group.reduce(into: [UUID]()) { $0 += $1 }
        }
        let stored = try store.dump().map(\.eventID)
        #expect(stored.count == 4 * perTask)
        #expect(Set(stored) == Set(ids))
    }

    @Test func statsReportLeasesAgeAndTypes() throws {
        let fixture = try EventStoreFixture()
        let store = try fixture.open()
        try store.enqueue(contentsOf: [fixture.event(), fixture.event(.dismiss), fixture.event()])
        fixture.clock.advance(by: .seconds(90))
        _ = try #require(try store.lease(maxEvents: 2, maxBytes: 1 << 20))
        let stats = try store.stats()
        #expect(stats.eventCount == 3)
        #expect(stats.countsByType == ["open": 2, "dismiss": 1])
        #expect(stats.oldestAgeMilliseconds == 90_000)
        #expect(stats.activeLeases == 1)
        #expect(stats.leasedEvents == 2)
        #expect(stats.totalBytes == (try store.dump().reduce(0) { $0 + $1.body.count }))
        #expect(try store.dump(limit: 2).count == 2)
        #expect(stats.json["event_count"] == .integer(3))
    }
}
