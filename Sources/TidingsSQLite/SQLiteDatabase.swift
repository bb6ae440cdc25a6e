import TidingsModel

/// A connection with one owner: every use is serialised through a lock and scoped by a closure.
///
/// ```swift
/// let database = try SQLiteDatabase(path: directory + "/events.sqlite")
/// let count = try database.write { db in
///     try db.run("INSERT INTO events(body) VALUES (?)", [.text(body)])
/// }
/// ```
public final class SQLiteDatabase: Sendable {
    private let connection: LockedBox<SQLiteConnection>
    public let path: String
    /// Writes waiting to be committed together by ``groupWrite(_:)``.
    let groupCommit = GroupCommitter<GroupedWrite>()

    public init(path: String, options: SQLiteConnection.Options = .init()) throws(SQLiteError) {
        self.path = path
        self.connection = LockedBox(try SQLiteConnection(path: path, options: options))
    }

    /// Runs `body` inside an immediate transaction.
    @discardableResult
    public func write<Result>(_ body: (SQLiteConnection) throws -> Result) throws -> Result {
        try connection.withLock { connection in
            try connection.transaction(immediate: true) { try body(connection) }
        }
    }

    /// Runs `body` with exclusive use of the connection and no transaction of its own.
    @discardableResult
    public func read<Result>(_ body: (SQLiteConnection) throws -> Result) rethrows -> Result {
        try connection.withLock { connection in try body(connection) }
    }
}
