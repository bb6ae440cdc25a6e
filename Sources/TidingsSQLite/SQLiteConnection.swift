import Foundation

#if canImport(SQLite3)
    import SQLite3
#else
    import CSQLite
#endif

/// One open SQLite database connection.
///
/// Not thread-safe by itself: give each connection one owner (``SQLiteDatabase`` serialises access
/// with a lock). Statements are prepared once and cached by their SQL text.
public final class SQLiteConnection {
    /// How a connection is opened.
    public struct Options: Sendable {
        /// Write-ahead logging lets readers and one writer, in any process, work at once.
        public var journalModeWAL = true
        /// `NORMAL` in WAL mode survives application crashes; `FULL` also survives power loss.
        public var synchronousFull = false
        /// How long a writer waits for another process's lock before `SQLITE_BUSY`.
        public var busyTimeoutMilliseconds: Int32 = 5_000
        public var readOnly = false

        public init() {}
    }

    /// Library-wide settings, made once before the first connection initializes SQLite.
    ///
    /// Only where the package's own shim is compiled (the Debian library, which the server links): Apple's
    /// `SQLite3` module cannot call the variadic `sqlite3_config`, and on an iPhone the system's SQLite is
    /// already initialized by the time the app's code runs, so the setting would not take effect there.
    private static let configureLibrary: Void = {
        #if !canImport(SQLite3)
            _ = tidings_sqlite3_disable_memory_statistics()
        #endif
    }()

    let handle: OpaquePointer
    private var statementCache: [String: SQLiteStatement] = [:]

    /// Opens (and creates, unless read-only) the database at `path`; `:memory:` for a private one.
    public init(path: String, options: Options = Options()) throws(SQLiteError) {
        var handle: OpaquePointer?
        let flags =
            options.readOnly
            ? SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX
            : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        _ = Self.configureLibrary
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            throw SQLiteError(code: status, message: "cannot open \(path): \(message)")
        }
        self.handle = handle
        sqlite3_busy_timeout(handle, options.busyTimeoutMilliseconds)
        sqlite3_extended_result_codes(handle, 1)
        if options.journalModeWAL && !options.readOnly && path != ":memory:" {
            try execute("PRAGMA journal_mode=WAL")
        }
        try execute(options.synchronousFull ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL")
        try execute("PRAGMA foreign_keys=ON")
    }

    deinit {
        statementCache.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements that return no rows we need.
    public func execute(_ sql: String) throws(SQLiteError) {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if status != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? lastErrorMessage
            sqlite3_free(errorMessage)
            throw SQLiteError(code: status, message: message, sql: sql)
        }
    }

    /// A prepared statement for `sql`, reset and with its bindings cleared; cached per connection.
    public func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        if let cached = statementCache[sql] {
            cached.reset()
            return cached
        }
        let statement = try SQLiteStatement(connection: self, sql: sql)
        statementCache[sql] = statement
        return statement
    }

    /// Runs `sql` with `bindings` and returns how many rows it changed.
    @discardableResult
    public func run(_ sql: String, _ bindings: [SQLiteValue] = []) throws(SQLiteError) -> Int {
        let statement = try prepare(sql)
        try statement.bind(bindings)
        while try statement.step() {}
        return changes
    }

    /// Runs `sql` with `bindings` and maps every row.
    public func query<Row>(
        _ sql: String, _ bindings: [SQLiteValue] = [], row map: (SQLiteStatement) throws -> Row
    ) throws -> [Row] {
        let statement = try prepare(sql)
        try statement.bind(bindings)
        var rows: [Row] = []
        while try statement.step() {
            rows.append(try map(statement))
        }
        return rows
    }

    /// The single value of the first row, or nil when there is no row.
    public func scalar(_ sql: String, _ bindings: [SQLiteValue] = []) throws(SQLiteError) -> SQLiteValue? {
        let statement = try prepare(sql)
        try statement.bind(bindings)
        guard try statement.step() else { return nil }
        let value = statement.value(at: 0)
        statement.reset()
        return value
    }

    /// Runs `body` inside a transaction; commits when it returns, rolls back when it throws.
    ///
    /// `immediate` takes the write lock up front, so two processes never deadlock upgrading a
    /// read transaction to a write (which SQLite answers with `SQLITE_BUSY` at once).
    public func transaction<Result>(immediate: Bool = true, _ body: () throws -> Result) throws -> Result {
        // Prepared once and kept, like every statement: `sqlite3_exec` would parse them on every call.
        try run(immediate ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED")
        do {
            let result = try body()
            try run("COMMIT")
            return result
        } catch {
            _ = try? run("ROLLBACK")
            throw error
        }
    }

    /// Rows changed by the most recent statement.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// The rowid of the most recent insert.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    var lastErrorMessage: String { String(cString: sqlite3_errmsg(handle)) }
}
