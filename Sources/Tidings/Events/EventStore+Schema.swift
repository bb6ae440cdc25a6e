import TidingsSQLite

extension EventStore {
    /// The schema version this SDK writes (`PRAGMA user_version`).
    public static let schemaVersion = 2

    /// Each migration brings the schema from the version before it to its own; run in order, once each.
    ///
    /// Every statement is idempotent, and all of them run in one immediate transaction with the version
    /// check, so the app and its extension can open a store for the first time at the same moment.
    static let migrations: [(version: Int, sql: String)] = [
        (
            1,
            """
            CREATE TABLE IF NOT EXISTS events(
                sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                event_id TEXT NOT NULL UNIQUE,
                type TEXT NOT NULL,
                occurred_at INTEGER NOT NULL,
                enqueued_at INTEGER NOT NULL,
                body BLOB NOT NULL,
                size INTEGER NOT NULL,
                attempts INTEGER NOT NULL DEFAULT 0,
                lease_id TEXT,
                lease_expires_at INTEGER
            );
            CREATE INDEX IF NOT EXISTS events_leased ON events(lease_expires_at) WHERE lease_expires_at IS NOT NULL;
            CREATE TABLE IF NOT EXISTS totals(
                id INTEGER PRIMARY KEY CHECK (id = 1),
                count INTEGER NOT NULL,
                bytes INTEGER NOT NULL
            );
            INSERT OR IGNORE INTO totals(id, count, bytes) VALUES (1, 0, 0);
            CREATE TRIGGER IF NOT EXISTS events_counted_in AFTER INSERT ON events BEGIN
                UPDATE totals SET count = count + 1, bytes = bytes + NEW.size WHERE id = 1;
            END;
            CREATE TRIGGER IF NOT EXISTS events_counted_out AFTER DELETE ON events BEGIN
                UPDATE totals SET count = count - 1, bytes = bytes - OLD.size WHERE id = 1;
            END;
            CREATE TRIGGER IF NOT EXISTS events_resized AFTER UPDATE OF size ON events BEGIN
                UPDATE totals SET bytes = bytes - OLD.size + NEW.size WHERE id = 1;
            END;
            CREATE TABLE IF NOT EXISTS drop_counters(
                reason TEXT PRIMARY KEY,
                total INTEGER NOT NULL,
                unreported INTEGER NOT NULL
            ) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS deliveries(
                message_id TEXT NOT NULL,
                installation_id TEXT NOT NULL,
                seen_at INTEGER NOT NULL,
                PRIMARY KEY (message_id, installation_id)
            ) WITHOUT ROWID;
            CREATE INDEX IF NOT EXISTS deliveries_by_age ON deliveries(seen_at);
            CREATE TABLE IF NOT EXISTS metadata(
                key TEXT PRIMARY KEY,
                value TEXT NOT NULL
            ) WITHOUT ROWID;
            """
        ),
        (
            2,
            // The order in which notification categories were last used, so the planner prunes the least
            // recently used button categories: iOS hands the registered ones back as an unordered set.
            """
            CREATE TABLE IF NOT EXISTS category_uses(
                id TEXT PRIMARY KEY,
                last_use INTEGER NOT NULL
            ) WITHOUT ROWID;
            """
        ),
    ]

    /// Brings the store to ``schemaVersion``; a no-op when it is there already.
    ///
    /// - Throws: ``EventStoreError`` `.schemaTooNew` for a store written by a newer SDK, `.notAnEventStore`
    ///   for a database that holds other tables.
    static func migrate(_ db: SQLiteConnection, path: String) throws {
        let version = Int(try db.scalar("PRAGMA user_version")?.integerValue ?? 0)
        if version > schemaVersion {
            throw EventStoreError(
                code: .schemaTooNew,
                message: "\(path) has schema version \(version); this SDK knows up to \(schemaVersion)")
        }
        if version == schemaVersion { return }
        if version == 0 {
            // A version-0 file with tables is someone else's database: a migration never commits
            // half-way, so an event store is either empty or versioned.
            let tables =
                try db.scalar("SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'")?.integerValue ?? 0
            if tables > 0 {
                throw EventStoreError(
                    code: .notAnEventStore, message: "\(path) is an SQLite database but not a Tidings event store")
            }
        }
        for migration in migrations where migration.version > version {
            try db.execute(migration.sql)
        }
        try db.execute("PRAGMA user_version = \(schemaVersion)")
    }
}
