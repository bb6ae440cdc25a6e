import Foundation
import Testing
import Tidings
import TidingsTesting

@Suite struct InMemoryEventQueueTests {
    let clock = ManualClock()

    func filled(_ count: Int, bodyBytes: Int = 10, leaseDuration: Duration = .seconds(60)) -> (
        InMemoryEventQueue, [UUID]
    ) {
        let queue = InMemoryEventQueue(clock: clock, leaseDuration: leaseDuration)
        let ids = (0..<count).map { index in
            let id = UUID()
            queue.enqueue(
                eventID: id, type: .init("open"), occurredAt: Int64(index),
                body: Array(repeating: UInt8(ascii: "x"), count: bodyBytes))
            return id
        }
        return (queue, ids)
    }

    @Test func leasesOldestFirstAndHidesLeasedRows() throws {
        let (queue, ids) = filled(5)
        let first = try #require(try queue.lease(maxEvents: 2, maxBytes: 1000))
        let second = try #require(try queue.lease(maxEvents: 10, maxBytes: 1000))
        #expect(first.events.map(\.eventID) == Array(ids[0..<2]))
        #expect(second.events.map(\.eventID) == Array(ids[2..<5]))
        #expect(try queue.lease(maxEvents: 10, maxBytes: 1000) == nil)
        #expect(try queue.count() == 5)
    }

    @Test func byteBudgetStopsAtTheFirstRowThatDoesNotFitButNeverReturnsNothing() throws {
        let (queue, _) = filled(5, bodyBytes: 100)
        #expect(try queue.lease(maxEvents: 10, maxBytes: 250)?.events.count == 2)
        #expect(try queue.lease(maxEvents: 10, maxBytes: 50)?.events.count == 1)
    }

    @Test func expiredLeasesHandRowsOutAgain() throws {
        let (queue, ids) = filled(2, leaseDuration: .seconds(60))
        let lease = try #require(try queue.lease(maxEvents: 10, maxBytes: 1000))
        #expect(lease.expiresAt == clock.now.millisecondsSince1970 + 60_000)
        clock.advance(by: .seconds(59))
        #expect(try queue.lease(maxEvents: 10, maxBytes: 1000) == nil)
        clock.advance(by: .seconds(1))
        #expect(try queue.lease(maxEvents: 10, maxBytes: 1000)?.events.map(\.eventID) == ids)
    }

    @Test func settlingDeletesAndReleaseReturnsTheRest() throws {
        let (queue, ids) = filled(3)
        let lease = try #require(try queue.lease(maxEvents: 10, maxBytes: 1000))
        try queue.acknowledge([ids[0]], lease: lease)
        try queue.reject([ids[1]], reason: "rejected:invalid", lease: lease)
        try queue.release(lease)
        #expect(queue.acknowledgedIDs == [ids[0]])
        #expect(queue.rejectedIDs == [ids[1]])
        #expect(queue.droppedCounts == ["rejected:invalid": 1])
        #expect(try queue.lease(maxEvents: 10, maxBytes: 1000)?.events.map(\.eventID) == [ids[2]])
    }

    @Test func settlingUnknownIDsChangesNothing() throws {
        let (queue, _) = filled(1)
        let lease = try #require(try queue.lease(maxEvents: 10, maxBytes: 1000))
        try queue.acknowledge([UUID()], lease: lease)
        try queue.reject([UUID()], reason: "x", lease: lease)
        #expect(try queue.count() == 1)
        #expect(queue.droppedCounts.isEmpty)
    }

    @Test func dropsOnlyEventsOlderThanTheCutoff() throws {
        let (queue, ids) = filled(4)
        #expect(try queue.dropEvents(olderThan: 2) == 2)
        #expect(queue.queuedIDs == Array(ids[2...]))
        #expect(queue.droppedCounts == ["expired": 2])
    }

    @Test func injectedFailuresAreThrown() throws {
        struct Broken: Error {}
        let (queue, _) = filled(1)
        queue.failOperations(with: Broken())
        #expect(throws: Broken.self) { try queue.lease(maxEvents: 1, maxBytes: 10) }
        #expect(throws: Broken.self) { try queue.count() }
        queue.failOperations(with: nil)
        #expect(try queue.count() == 1)
    }
}
