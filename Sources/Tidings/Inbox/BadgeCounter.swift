import TidingsSQLite

/// The badge number shared by the app and its extension, kept in the shared container's database.
///
/// An increment reads and writes the counter in one immediate transaction, so two processes applying
/// pushes at once never lose one.
public final class BadgeCounter: Sendable {
    private let database: SQLiteDatabase
    public let policy: BadgePolicy

    /// Opens the counter in `database`, creating its table when missing.
    public init(database: SQLiteDatabase, policy: BadgePolicy = BadgePolicy()) throws {
        self.database = database
        self.policy = policy
        try database.write { db in
            try db.execute(
                "CREATE TABLE IF NOT EXISTS tidings_badge (id INTEGER PRIMARY KEY CHECK (id = 1), count INTEGER NOT NULL)"
            )
        }
    }

    /// The number last shown.
    public func current() throws -> Int {
        try database.read { db in try Self.count(db) }
    }

    /// Applies a push's instruction, saves the result and returns what to show.
    public func apply(_ instruction: BadgeInstruction, inboxUnread: Int? = nil) throws -> BadgeUpdate {
        try database.write { db in
            let update = policy.update(for: instruction, counter: try Self.count(db), inboxUnread: inboxUnread)
            if case .set(let count) = update { try Self.store(count, db) }
            return update
        }
    }

    /// Applies the launch rule, saves the result and returns what to show.
    public func launch(inboxUnread: Int? = nil) throws -> BadgeUpdate {
        let update = policy.launchUpdate(inboxUnread: inboxUnread)
        if case .set(let count) = update { try record(count) }
        return update
    }

    /// Records a number the app showed itself, so the next increment starts from it.
    public func record(_ count: Int) throws {
        try database.write { db in try Self.store(max(0, count), db) }
    }

    private static func count(_ db: SQLiteConnection) throws -> Int {
        Int(try db.scalar("SELECT count FROM tidings_badge WHERE id = 1")?.integerValue ?? 0)
    }

    private static func store(_ count: Int, _ db: SQLiteConnection) throws {
        try db.run(
            "INSERT INTO tidings_badge (id, count) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET count = excluded.count",
            [.integer(Int64(count))])
    }
}
