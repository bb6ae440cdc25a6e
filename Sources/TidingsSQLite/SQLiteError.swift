/// A failure reported by SQLite, with its result code and the statement that caused it.
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// The (extended) SQLite result code, for example 5 for `SQLITE_BUSY`.
    public var code: Int32
    public var message: String
    public var sql: String?

    public init(code: Int32, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    /// The primary result code (the low byte of an extended code).
    public var primaryCode: Int32 { code & 0xFF }

    /// Whether another connection held the lock past the busy timeout.
    public var isBusy: Bool { primaryCode == 5 || primaryCode == 6 }

    public var description: String {
        "SQLite error \(code): \(message)" + (sql.map { " (in \($0))" } ?? "")
    }
}
