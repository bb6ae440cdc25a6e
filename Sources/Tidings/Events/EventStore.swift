import Foundation
import TidingsModel
import TidingsSQLite

/// The durable queue of analytics events, shared by the app and its Notification Service Extension.
///
/// One SQLite file in WAL mode, in a directory the app chooses (the App Group container on iOS), written
/// by both processes at once: every write is an immediate transaction, waits for the other process up to
/// the busy timeout, and the schema migrates inside such a transaction, so either process may be first.
///
/// ```swift
/// let store = try EventStore(directory: appGroupURL, clock: SystemClock(), logger: logger)
/// try store.enqueue(TidingsEvent(type: .open, occurredAt: now, installationID: id, messageID: messageID))
/// ```
///
/// - ``enqueue(_:)`` returns only once the event is committed. Concurrent callers of one process are
///   committed together (group commit), so many threads cost one transaction, not one each.
/// - Bounded by ``Configuration/maximumEvents`` and ``Configuration/maximumBytes``: beyond them the oldest
///   events are dropped and counted by reason in the store. The next ``lease(maxEvents:maxBytes:)`` turns
///   the counters into one `events_dropped` event (`attributes.count`, `attributes.reason`, and
///   `attributes.reasons` per reason), so drops are reported, never silent. That report is never itself
///   dropped for the cap, and drops of reports are not counted, so the report cannot feed itself.
/// - Rows under an unexpired lease are neither dropped for the bounds nor counted against them: the store
///   may exceed its bounds by the batches in flight.
/// - ``recordDelivery(_:)`` records `delivery` once per message and installation across processes.
/// - Calls are synchronous: an enqueue blocks its thread for the commit (tens of microseconds, up to the
///   busy timeout while the other process holds the write lock), so keep it off a thread that must not wait.
public final class EventStore: EventQueue, Sendable {
    /// Where the store lives.
    public let path: String
    public let configuration: Configuration
    let database: SQLiteDatabase
    let clock: any TidingsClock
    let logger: Logger
    private let committer = GroupCommitter<[PendingEvent], [Int64]>()
    let checkpointer: WALCheckpointer?
    /// Per-process memory that saves writes: the installation id last written, the last delivery purge.
    let memory = LockedBox(Memory())

    struct Memory {
        var installationID: String?
        var lastDeliveryPurge: Int64?
    }

    /// An event validated and serialised, ready to insert.
    struct PendingEvent {
        var eventID: String
        var type: String
        var occurredAt: Int64
        var installationID: String
        var body: [UInt8]
    }

    /// Opens (creating it when allowed) the store at `path`, and migrates it to ``schemaVersion``.
    ///
    /// - Throws: ``EventStoreError``: `.notFound`, `.notADatabase` (a garbage file), `.notAnEventStore`,
    ///   `.schemaTooNew`, `.corrupt`, `.busy`.
    public init(
        path: String, configuration: Configuration = Configuration(), clock: any TidingsClock = SystemClock(),
        logger: Logger = .disabled(label: "tidings.events")
    ) throws(EventStoreError) {
        guard configuration.maximumEvents > 0, configuration.maximumBytes > 0 else {
            throw EventStoreError(
                code: .invalidArgument, message: "maximumEvents and maximumBytes must be positive")
        }
        self.path = path
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        let fileManager = FileManager.default
        if !fileManager.fileExists(atPath: path) {
            guard configuration.createIfMissing else {
                throw EventStoreError(code: .notFound, message: "no event store at \(path)")
            }
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
            try? fileManager.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        var options = SQLiteConnection.Options()
        options.synchronousFull = configuration.durability == .powerSafe
        options.busyTimeoutMilliseconds = Int32(clamping: Int64(configuration.busyTimeout.seconds * 1000))
        database = try Self.open(path: path, options: options)
        checkpointer =
            configuration.checkpointInBackground
            ? WALCheckpointer(database: database, delay: .milliseconds(100), logger: logger) : nil
        do {
            try database.read { db in
                if checkpointer != nil {
                    try db.execute("PRAGMA wal_autocheckpoint = \(WALCheckpointer.safetyNetPages)")
                }
                // A log that grew in a burst is cut back when it starts over, so it does not keep the disk.
                try db.execute("PRAGMA journal_size_limit = \(4 * 1024 * 1024)")
            }
            try database.write { db in try Self.migrate(db, path: path) }
        } catch let error as EventStoreError {
            throw error
        } catch let error as SQLiteError {
            throw EventStoreError(error, path: path)
        } catch {
            throw EventStoreError(code: .storage, message: "\(path): \(error)")
        }
        logger.debug("event store open", metadata: ["path": path])
    }

    /// Opens the store `fileName` inside `directory` (the App Group container on iOS).
    public convenience init(
        directory: URL, configuration: Configuration = Configuration(), clock: any TidingsClock = SystemClock(),
        logger: Logger = .disabled(label: "tidings.events")
    ) throws(EventStoreError) {
        try self.init(
            path: directory.appendingPathComponent(configuration.fileName).path, configuration: configuration,
            clock: clock, logger: logger)
    }

    /// Opens the connection, retrying while the other process switches a new file to WAL (which needs a
    /// lock SQLite does not wait for).
    private static func open(path: String, options: SQLiteConnection.Options) throws(EventStoreError)
        -> SQLiteDatabase
    {
        var attempt = 0
        while true {
            do {
                return try SQLiteDatabase(path: path, options: options)
            } catch {
                attempt += 1
                guard error.isBusy, attempt < 50 else { throw EventStoreError(error, path: path) }
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
    }

    var nowMilliseconds: Int64 { clock.now.millisecondsSince1970 }

    // MARK: - Enqueue

    /// Validates `event`, stores it, and returns its sequence once it is committed.
    ///
    /// Enqueueing an `event_id` that is already waiting stores nothing and returns the waiting row's sequence.
    /// - Throws: ``EventValidationError`` when the event breaks a rule (`.eventTooLarge` above
    ///   ``EventLimits/maximumEventBytes``, naming the limit); ``EventStoreError`` when storage fails.
    @discardableResult
    public func enqueue(_ event: TidingsEvent) throws -> Int64 {
        let pending = try prepare(event, now: nowMilliseconds)
        return try commit([pending])[0]
    }

    /// Stores a burst of events in one transaction: all of them or, when one is invalid, none.
    ///
    /// - Returns: The events' sequences, in order.
    @discardableResult
    public func enqueue(contentsOf events: [TidingsEvent]) throws -> [Int64] {
        guard !events.isEmpty else { return [] }
        let now = nowMilliseconds
        let pending = try events.map { event in try prepare(event, now: now) }
        return try commit(pending)
    }

    /// Serialises and validates one event, outside any lock.
    func prepare(_ event: TidingsEvent, now: Int64) throws -> PendingEvent {
        let body = try Self.serialize(event)
        try event.validate(now: now, limits: configuration.limits, serializedBytes: body.count)
        return PendingEvent(
            eventID: event.eventID.uuidString.lowercased(), type: event.type.rawValue, occurredAt: event.occurredAt,
            installationID: event.installationID, body: body)
    }

    private func commit(_ events: [PendingEvent]) throws -> [Int64] {
        guard configuration.groupCommit else {
            return try write { db in try self.insert(events, into: db, now: self.nowMilliseconds) }
        }
        return try committer.submit(events) { batches in
            let now = self.nowMilliseconds
            return try self.write { db in
                try batches.map { events in try self.insert(events, into: db, now: now) }
            }
        }
    }

    /// Runs `body` in an immediate transaction, with SQLite failures turned into ``EventStoreError``.
    func write<Result>(_ body: (SQLiteConnection) throws -> Result) throws -> Result {
        let result = try EventStoreError.wrapping(path: path) { try database.write(body) }
        checkpointer?.didCommit()
        return result
    }

    /// Runs `body` on the connection without a transaction of its own.
    func read<Result>(_ body: (SQLiteConnection) throws -> Result) throws -> Result {
        try EventStoreError.wrapping(path: path) { try database.read(body) }
    }

    /// Inserts `events` and enforces the bounds; inside the caller's transaction.
    func insert(_ events: [PendingEvent], into db: SQLiteConnection, now: Int64) throws -> [Int64] {
        var sequences: [Int64] = []
        sequences.reserveCapacity(events.count)
        for event in events {
            let statement = try db.prepare(
                """
                INSERT INTO events(event_id, type, occurred_at, enqueued_at, body, size) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT(event_id) DO NOTHING
                """)
            try statement.bind(.text(event.eventID), at: 1)
            try statement.bind(.text(event.type), at: 2)
            try statement.bind(.integer(event.occurredAt), at: 3)
            try statement.bind(.integer(now), at: 4)
            try statement.bind(.blob(event.body), at: 5)
            try statement.bind(.integer(Int64(event.body.count)), at: 6)
            while try statement.step() {}
            if db.changes == 1 {
                sequences.append(db.lastInsertRowID)
            } else {
                let existing = try db.scalar("SELECT sequence FROM events WHERE event_id = ?", [.text(event.eventID)])
                sequences.append(existing?.integerValue ?? 0)
            }
        }
        if let installationID = events.last?.installationID {
            try remember(installationID: installationID, in: db)
        }
        try enforceBounds(in: db, now: now)
        return sequences
    }

    /// Keeps the newest installation id, which the drop report needs; written only when it changes.
    private func remember(installationID: String, in db: SQLiteConnection) throws {
        if memory.withLock({ $0.installationID == installationID }) { return }
        try db.run(
            "INSERT OR REPLACE INTO metadata(key, value) VALUES ('installation_id', ?)", [.text(installationID)])
        memory.withLock { $0.installationID = installationID }
    }

    /// Drops the oldest events (not reports, not leased rows) until the store is within its bounds.
    ///
    /// Rows under an unexpired lease are being uploaded: they are neither dropped nor counted against the
    /// bounds, so the store may exceed them by the batches in flight rather than drop the newest events.
    func enforceBounds(in db: SQLiteConnection, now: Int64) throws {
        let totals = try db.prepare("SELECT count, bytes FROM totals WHERE id = 1")
        guard try totals.step() else { return }
        var count = totals.int64(at: 0)
        var bytes = totals.int64(at: 1)
        totals.reset()
        guard count > Int64(configuration.maximumEvents) || bytes > Int64(configuration.maximumBytes) else { return }
        let leased = try db.prepare("SELECT count(*), total(size) FROM events WHERE lease_expires_at > ?")
        try leased.bind(.integer(now), at: 1)
        if try leased.step() {
            count -= leased.int64(at: 0)
            bytes -= Int64(leased.double(at: 1))
        }
        leased.reset()
        let excessCount = count - Int64(configuration.maximumEvents)
        let excessBytes = bytes - Int64(configuration.maximumBytes)
        guard excessCount > 0 || excessBytes > 0 else { return }

        let candidates = try db.prepare(
            """
            SELECT sequence, size FROM events
            WHERE type != 'events_dropped' AND (lease_expires_at IS NULL OR lease_expires_at <= ?)
            ORDER BY sequence
            """)
        try candidates.bind(.integer(now), at: 1)
        var victims: [Int64] = []
        var freedBytes: Int64 = 0
        while Int64(victims.count) < excessCount || freedBytes < excessBytes, try candidates.step() {
            victims.append(candidates.int64(at: 0))
            freedBytes += candidates.int64(at: 1)
        }
        candidates.reset()
        guard !victims.isEmpty else { return }
        for sequence in victims {
            try db.run("DELETE FROM events WHERE sequence = ?", [.integer(sequence)])
        }
        try countDropped(victims.count, reason: DropReason.queueFull, in: db)
        logger.debug(
            "event store full: dropped the oldest events",
            metadata: ["count": "\(victims.count)", "reason": DropReason.queueFull])
    }

    /// Adds `count` drops for `reason` to the persistent counters.
    func countDropped(_ count: Int, reason: String, in db: SQLiteConnection) throws {
        guard count > 0 else { return }
        try db.run(
            """
            INSERT INTO drop_counters(reason, total, unreported) VALUES (?, ?, ?)
            ON CONFLICT(reason) DO UPDATE SET total = total + excluded.total, unreported = unreported + excluded.unreported
            """, [.text(reason), .integer(Int64(count)), .integer(Int64(count))])
    }

    /// Runs SQLite's own consistency check; `["ok"]` for a healthy store.
    public func integrityCheck() throws -> [String] {
        try read { db in try db.query("PRAGMA integrity_check") { $0.text(at: 0) } }
    }
}
