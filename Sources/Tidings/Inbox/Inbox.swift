import Foundation
import TidingsSQLite

/// The app's message inbox, in the shared container so the extension and the app can both write it.
///
/// Entries are keyed by message id (adding one twice keeps the first, with its read flag), listed newest
/// first with expired entries hidden (``purgeExpired()`` deletes them; call it on app start), and capped: beyond ``Configuration/capacity`` the oldest are dropped.
/// Every write is an immediate transaction on a WAL database, so another process's writer waits for the
/// lock (up to the connection's busy timeout) instead of failing half-way.
///
/// ```swift
/// let inbox = try Inbox(database: SQLiteDatabase(path: groupDirectory + "/tidings.sqlite"))
/// if Inbox.accepts(payload) { try inbox.add(payload) }
/// let unread = try inbox.unreadCount()
/// ```
public final class Inbox: Sendable {
    /// How big the inbox may grow.
    public struct Configuration: Sendable, Hashable {
        /// The most entries kept; the oldest beyond it are dropped on every add.
        public var capacity = 200

        public init() {}
    }

    private let database: SQLiteDatabase
    private let clock: any TidingsClock
    public let configuration: Configuration

    /// Opens the inbox in `database`, creating its table when missing.
    public init(
        database: SQLiteDatabase, clock: any TidingsClock = SystemClock(),
        configuration: Configuration = Configuration()
    ) throws(InboxError) {
        self.database = database
        self.clock = clock
        self.configuration = configuration
        try perform { db in
            try db.execute(
                """
                CREATE TABLE IF NOT EXISTS tidings_inbox (
                    id TEXT PRIMARY KEY, title TEXT, subtitle TEXT, body TEXT,
                    received_at INTEGER NOT NULL, expires_at INTEGER, is_read INTEGER NOT NULL DEFAULT 0,
                    dialect TEXT NOT NULL, payload TEXT NOT NULL);
                CREATE INDEX IF NOT EXISTS tidings_inbox_received ON tidings_inbox (received_at);
                """)
        }
    }

    /// Whether a payload is meant for the inbox: it asks for it, has a message id and is not internal.
    public static func accepts(_ payload: PushPayload) -> Bool {
        payload.inbox != nil && payload.messageID != nil && !payload.isInternal
    }

    /// Adds an entry for `payload`; false when it was already there or has already expired.
    ///
    /// - Throws: ``InboxError/Code/missingMessageID`` when the payload has no message id.
    @discardableResult
    public func add(_ payload: PushPayload, receivedAt: Date? = nil) throws(InboxError) -> Bool {
        guard let id = payload.messageID, !id.isEmpty else {
            throw InboxError(code: .missingMessageID, message: "an inbox entry needs the payload's message id")
        }
        let now = clock.now
        let expiresAt = payload.inbox?.expiresAt
        if let expiresAt, expiresAt <= now { return false }
        let text: String
        do {
            text = try payload.nativeJSON.serializedString()
        } catch {
            throw InboxError(code: .corruptEntry, message: "cannot serialise payload \(id): \(error)")
        }
        let capacity = max(1, configuration.capacity)
        return try perform { db in
            let inserted = try db.run(
                """
                INSERT OR IGNORE INTO tidings_inbox
                    (id, title, subtitle, body, received_at, expires_at, dialect, payload)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .text(id), SQLiteValue(payload.alert?.title), SQLiteValue(payload.alert?.subtitle),
                    SQLiteValue(payload.alert?.body), .integer((receivedAt ?? now).millisecondsSince1970),
                    SQLiteValue(expiresAt?.millisecondsSince1970), .text(payload.dialect.rawValue), .text(text),
                ])
            try db.run(
                """
                DELETE FROM tidings_inbox WHERE rowid IN (
                    SELECT rowid FROM tidings_inbox ORDER BY received_at DESC, rowid DESC LIMIT -1 OFFSET ?)
                """, [.integer(Int64(capacity))])
            return inserted > 0
        }
    }

    /// Entries not yet expired, newest first; at most `limit` when given.
    public func list(limit: Int? = nil) throws(InboxError) -> [InboxEntry] {
        let now = clock.now.millisecondsSince1970
        return try performRead { db in
            try db.query(
                """
                SELECT id, title, subtitle, body, received_at, expires_at, is_read, dialect, payload
                FROM tidings_inbox WHERE expires_at IS NULL OR expires_at > ?
                ORDER BY received_at DESC, rowid DESC LIMIT ?
                """, [.integer(now), .integer(Int64(limit ?? -1))], row: Self.entry)
        }
    }

    /// One entry by message id, expired or not; nil when there is none.
    public func entry(id: String) throws(InboxError) -> InboxEntry? {
        try performRead { db in
            try db.query(
                """
                SELECT id, title, subtitle, body, received_at, expires_at, is_read, dialect, payload
                FROM tidings_inbox WHERE id = ?
                """, [.text(id)], row: Self.entry
            ).first
        }
    }

    /// Unread entries not yet expired.
    public func unreadCount() throws(InboxError) -> Int {
        let now = clock.now.millisecondsSince1970
        return try performRead { db in
            let value = try db.scalar(
                "SELECT COUNT(*) FROM tidings_inbox WHERE is_read = 0 AND (expires_at IS NULL OR expires_at > ?)",
                [.integer(now)])
            return Int(value?.integerValue ?? 0)
        }
    }

    /// Marks one entry read; false when there is no such entry.
    @discardableResult
    public func markRead(id: String) throws(InboxError) -> Bool {
        try perform { db in try db.run("UPDATE tidings_inbox SET is_read = 1 WHERE id = ?", [.text(id)]) > 0 }
    }

    /// Marks every entry read; returns how many changed.
    @discardableResult
    public func markAllRead() throws(InboxError) -> Int {
        try perform { db in try db.run("UPDATE tidings_inbox SET is_read = 1 WHERE is_read = 0") }
    }

    /// Deletes one entry; false when there is no such entry.
    @discardableResult
    public func delete(id: String) throws(InboxError) -> Bool {
        try perform { db in try db.run("DELETE FROM tidings_inbox WHERE id = ?", [.text(id)]) > 0 }
    }

    /// Deletes expired entries (call on app start); returns how many.
    @discardableResult
    public func purgeExpired() throws(InboxError) -> Int {
        let now = clock.now.millisecondsSince1970
        return try perform { db in try db.run("DELETE FROM tidings_inbox WHERE expires_at <= ?", [.integer(now)]) }
    }

    /// Every stored entry, expired or not.
    public func count() throws(InboxError) -> Int {
        try performRead { db in Int(try db.scalar("SELECT COUNT(*) FROM tidings_inbox")?.integerValue ?? 0) }
    }

    private static func entry(_ row: SQLiteStatement) throws -> InboxEntry {
        let id = row.text(at: 0)
        var payload: PushPayload
        do {
            payload = try PushPayload(json: try JSONValue.parse(row.text(at: 8)))
        } catch {
            throw InboxError(code: .corruptEntry, message: "stored payload of \(id) is unreadable: \(error)")
        }
        payload.dialect = PushDialect(rawValue: row.text(at: 7)) ?? payload.dialect
        return InboxEntry(
            id: id, title: row.optionalText(at: 1), subtitle: row.optionalText(at: 2), body: row.optionalText(at: 3),
            receivedAt: Date(millisecondsSince1970: row.int64(at: 4)),
            expiresAt: row.isNull(at: 5) ? nil : Date(millisecondsSince1970: row.int64(at: 5)),
            isRead: row.int(at: 6) != 0, payload: payload)
    }

    /// Runs one read statement without taking the write lock (a single statement reads one snapshot).
    private func performRead<Result>(_ body: (SQLiteConnection) throws -> Result) throws(InboxError) -> Result {
        do {
            return try database.read(body)
        } catch let error as InboxError {
            throw error
        } catch {
            throw InboxError(code: .storage, message: "inbox database: \(error)")
        }
    }

    /// Runs `body` in an immediate transaction, with every failure as an ``InboxError``.
    private func perform<Result>(_ body: (SQLiteConnection) throws -> Result) throws(InboxError) -> Result {
        do {
            return try database.write(body)
        } catch let error as InboxError {
            throw error
        } catch {
            throw InboxError(code: .storage, message: "inbox database: \(error)")
        }
    }
}
