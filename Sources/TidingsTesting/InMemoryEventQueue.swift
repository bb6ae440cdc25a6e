import Foundation
import Tidings

/// An ``EventQueue`` in memory, for tests: honours leases and their expiry on an injected clock,
/// and remembers what was acknowledged, rejected and dropped.
public final class InMemoryEventQueue: EventQueue {
    /// Why an event left the queue other than by acknowledgement, with how many.
    public typealias DropCounts = [String: Int]

    private struct State {
        var events: [QueuedEvent] = []
        var nextSequence: Int64 = 1
        /// Lease id → leased event ids and expiry.
        var leases: [UUID: (ids: Set<UUID>, expiresAt: Int64)] = [:]
        var acknowledged: [UUID] = []
        var rejected: [UUID] = []
        var dropped: DropCounts = [:]
        var leaseCount = 0
        var failure: (any Error)?
    }

    private let state = LockedBox(State())
    private let clock: any TidingsClock
    /// How long a lease lasts before its rows are handed out again.
    public let leaseDuration: Duration

    public init(clock: any TidingsClock, leaseDuration: Duration = .seconds(60)) {
        self.clock = clock
        self.leaseDuration = leaseDuration
    }

    // MARK: - Filling and inspecting

    /// Appends `event` with its wire JSON (sorted keys) as the body; returns its sequence number.
    @discardableResult
    public func enqueue(_ event: TidingsEvent) -> Int64 {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = Array((try? encoder.encode(event)) ?? Data("{}".utf8))
        return enqueue(eventID: event.eventID, type: event.type, occurredAt: event.occurredAt, body: body)
    }

    /// Appends a row with an arbitrary body (to test what the server does with bad JSON).
    @discardableResult
    public func enqueue(eventID: UUID, type: EventType, occurredAt: Int64, body: [UInt8]) -> Int64 {
        state.withLock { state in
            let sequence = state.nextSequence
            state.nextSequence += 1
            state.events.append(
                QueuedEvent(sequence: sequence, eventID: eventID, type: type, occurredAt: occurredAt, body: body))
            return sequence
        }
    }

    /// The ids still queued, oldest first.
    public var queuedIDs: [UUID] { state.withLock { $0.events.map(\.eventID) } }
    /// Ids deleted by acknowledgement, in order.
    public var acknowledgedIDs: [UUID] { state.withLock { $0.acknowledged } }
    /// Ids deleted by rejection, in order.
    public var rejectedIDs: [UUID] { state.withLock { $0.rejected } }
    /// Dropped events (rejected or expired) counted by reason.
    public var droppedCounts: DropCounts { state.withLock { $0.dropped } }
    /// How many leases were handed out.
    public var leaseCount: Int { state.withLock { $0.leaseCount } }
    /// How many leases are live (not settled, not expired).
    public var activeLeaseCount: Int {
        let now = clock.now.millisecondsSince1970
        return state.withLock { $0.leases.values.filter { $0.expiresAt > now }.count }
    }

    /// Makes every following operation throw `error` (nil restores normal service).
    public func failOperations(with error: (any Error)?) {
        state.withLock { $0.failure = error }
    }

    // MARK: - EventQueue

    public func lease(maxEvents: Int, maxBytes: Int) throws -> EventLease? {
        let now = clock.now.millisecondsSince1970
        return try state.withLock { state -> EventLease? in
            if let failure = state.failure { throw failure }
            state.leases = state.leases.filter { $0.value.expiresAt > now }
            let leased = state.leases.values.reduce(into: Set<UUID>()) { $0.formUnion($1.ids) }
            var picked: [QueuedEvent] = []
            var bytes = 0
            for event in state.events where !leased.contains(event.eventID) {
                guard picked.count < maxEvents else { break }
                // The oldest rows go first, so stop at the first that does not fit rather than skip it.
                if !picked.isEmpty && bytes + event.body.count > maxBytes { break }
                picked.append(event)
                bytes += event.body.count
            }
            guard !picked.isEmpty else { return nil }
            let expiresAt = now + leaseDuration.milliseconds
            let id = UUID()
            state.leases[id] = (Set(picked.map(\.eventID)), expiresAt)
            state.leaseCount += 1
            return EventLease(id: id, events: picked, expiresAt: expiresAt)
        }
    }

    public func acknowledge(_ eventIDs: [UUID], lease: EventLease) throws {
        try state.withLock { state in
            if let failure = state.failure { throw failure }
            let removed = Self.remove(eventIDs, from: &state)
            state.acknowledged.append(contentsOf: removed)
        }
    }

    public func reject(_ eventIDs: [UUID], reason: String, lease: EventLease) throws {
        try state.withLock { state in
            if let failure = state.failure { throw failure }
            let removed = Self.remove(eventIDs, from: &state)
            state.rejected.append(contentsOf: removed)
            if !removed.isEmpty { state.dropped[reason, default: 0] += removed.count }
        }
    }

    public func release(_ lease: EventLease) throws {
        try state.withLock { state in
            if let failure = state.failure { throw failure }
            state.leases[lease.id] = nil
        }
    }

    @discardableResult
    public func dropEvents(olderThan cutoff: Int64) throws -> Int {
        try state.withLock { state in
            if let failure = state.failure { throw failure }
            let old = state.events.filter { $0.occurredAt < cutoff }.map(\.eventID)
            let removed = Self.remove(old, from: &state)
            if !removed.isEmpty { state.dropped["expired", default: 0] += removed.count }
            return removed.count
        }
    }

    public func count() throws -> Int {
        try state.withLock { state in
            if let failure = state.failure { throw failure }
            return state.events.count
        }
    }

    /// Deletes the rows with these ids (and their lease entries); returns the ids that were present.
    private static func remove(_ ids: [UUID], from state: inout State) -> [UUID] {
        let wanted = Set(ids)
        let present = state.events.filter { wanted.contains($0.eventID) }.map(\.eventID)
        state.events.removeAll { wanted.contains($0.eventID) }
        for key in state.leases.keys {
            state.leases[key]?.ids.subtract(wanted)
        }
        return present
    }
}

extension Duration {
    fileprivate var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
