import Foundation
import Testing
import Tidings
import TidingsModel

@Suite struct EventStoreBoundsTests {
    @Test func beyondTheEventCapTheOldestAreDroppedAndCounted() throws {
        let fixture = try EventStoreFixture()
        let store = try fixture.open { $0.maximumEvents = 3 }
        let events = (0..<5).map { fixture.event(value: "\($0)") }
        for event in events { try store.enqueue(event) }
        #expect(try store.dump().map(\.eventID) == events.suffix(3).map(\.eventID))
        #expect(try store.stats().dropped[DropReason.queueFull] == .init(total: 2, unreported: 2))
    }

    @Test func beyondTheByteCapTheOldestAreDropped() throws {
        let fixture = try EventStoreFixture()
        let probe = try fixture.open()
        try probe.enqueue(fixture.event(value: "size probe"))
        let size = try probe.stats().totalBytes
        let store = try EventStore(
            path: fixture.path + "-bytes",
            configuration: {
                var c = EventStore.Configuration(); c.maximumBytes = size * 2 + size / 2; return c
            }(),
            clock: fixture.clock)
        for index in 0..<4 { try store.enqueue(fixture.event(value: "byte cap \(index)")) }
        let stats = try store.stats()
        #expect(stats.eventCount == 2)
        #expect(stats.totalBytes <= size * 2 + size / 2)
        #expect(stats.dropped[DropReason.queueFull]?.total == 2)
    }

    @Test func dropsAreReportedOnceAsAnEventsDroppedEventAtTheNextLease() throws {
        let fixture = try EventStoreFixture()
        let store = try fixture.open { $0.maximumEvents = 3 }
        for _ in 0..<5 { try store.enqueue(fixture.event()) }
        let lease = try #require(try store.lease(maxEvents: 10, maxBytes: 1 << 20))
        let reports = try lease.events.filter { $0.type == .eventsDropped }.map {
            try JSONDecoder().decode(TidingsEvent.self, from: Data($0.body))
        }
        #expect(reports.count == 1)
        #expect(reports.first?.attributes?["count"] == .integer(2))
        #expect(reports.first?.attributes?["reason"] == .string(DropReason.queueFull))
        #expect(reports.first?.installationID == "inst-1")
        #expect(try store.stats().dropped[DropReason.queueFull] == .init(total: 2, unreported: 0))
        try store.acknowledge(lease.events.map(\.eventID), lease: lease)
        #expect(try store.lease(maxEvents: 10, maxBytes: 1 << 20) == nil)
    }

    @Test func aWaitingReportIsMergedNotDuplicatedAndNeverDroppedForTheCap() throws {
        let fixture = try EventStoreFixture()
        let store = try fixture.open { $0.maximumEvents = 2 }
        for _ in 0..<4 { try store.enqueue(fixture.event()) }
        // A lease too small to reach the report: the report waits, never handed out.
        let small = try #require(try store.lease(maxEvents: 1, maxBytes: 1 << 20))
        try store.release(small)
        for _ in 0..<3 { try store.enqueue(fixture.event()) }
        let again = try #require(try store.lease(maxEvents: 1, maxBytes: 1 << 20))
        try store.release(again)
        let reports = try store.dump().filter { $0.type == .eventsDropped }
        #expect(reports.count == 1)
        let report = try JSONDecoder().decode(TidingsEvent.self, from: Data(reports[0].body))
        // The waiting report counts toward the cap, so later enqueues dropped one more event each.
        let dropped = try #require(try store.stats().dropped[DropReason.queueFull])
        #expect(dropped == .init(total: 6, unreported: 0))
        #expect(report.attributes?["count"] == .integer(6))
        #expect(report.attributes?["reasons"] == .object([DropReason.queueFull: .integer(6)]))
    }

    @Test func aRejectedReportIsNotCountedAsADrop() throws {
        let fixture = try EventStoreFixture()
        let store = try fixture.open { $0.maximumEvents = 1 }
        for _ in 0..<2 { try store.enqueue(fixture.event()) }
        let lease = try #require(try store.lease(maxEvents: 10, maxBytes: 1 << 20))
        let reportIDs = lease.events.filter { $0.type == .eventsDropped }.map(\.eventID)
        #expect(reportIDs.count == 1)
        try store.reject(reportIDs, reason: "invalid_value", lease: lease)
        #expect(try store.stats().dropped["invalid_value"] == nil)
        try store.release(lease)
        let next = try #require(try store.lease(maxEvents: 10, maxBytes: 1 << 20))
        #expect(next.events.allSatisfy { $0.type != .eventsDropped })
    }

    @Test func anEventOver32KilobytesIsRejectedNamingTheLimit() throws {
        let fixture = try EventStoreFixture()
        let store = try fixture.open()
        let attributes: [String: JSONValue] = (0..<12).reduce(into: [:]) {
            $0["k\($1)"] = .string(String(repeating: "a", count: 3000))
        }
        var event = fixture.event()
        event.attributes = attributes
        let error = try #require(throws: EventValidationError.self) { try store.enqueue(event) }
        #expect(error.code == .eventTooLarge)
        #expect(error.message.contains("32768"))
        #expect(try store.count() == 0)
    }

    @Test func anInvalidEventInABurstStoresNoneOfIt() throws {
        let fixture = try EventStoreFixture()
        let store = try fixture.open()
        let burst = [fixture.event(), fixture.event(.open, messageID: nil), fixture.event()]
        let error = try #require(throws: EventValidationError.self) { try store.enqueue(contentsOf: burst) }
        #expect(error.code == .missingField)
        #expect(try store.count() == 0)
    }

    @Test func theSameEventIDIsStoredOnce() throws {
        let fixture = try EventStoreFixture()
        let store = try fixture.open()
        let event = fixture.event()
        let first = try store.enqueue(event)
        let second = try store.enqueue(event)
        #expect(first == second)
        #expect(try store.count() == 1)
    }

    @Test func rowsUnderAnActiveLeaseAreNotDroppedForTheCap() throws {
        let fixture = try EventStoreFixture()
        let store = try fixture.open { $0.maximumEvents = 2 }
        let first = [fixture.event(), fixture.event()]
        try store.enqueue(contentsOf: first)
        let lease = try #require(try store.lease(maxEvents: 2, maxBytes: 1 << 20))
        let later = [fixture.event(), fixture.event(), fixture.event()]
        for event in later { try store.enqueue(event) }
        // The leased two are being uploaded: they are neither dropped nor counted, so the cap applies to
        // the others, and the oldest of those made room.
        let stored = try store.dump().map(\.eventID)
        #expect(stored == first.map(\.eventID) + later.suffix(2).map(\.eventID))
        #expect(try store.stats().dropped[DropReason.queueFull]?.total == 1)
        try store.acknowledge(lease.events.map(\.eventID), lease: lease)
        #expect(try store.count() == 2)
    }
}
