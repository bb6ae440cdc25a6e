/// A failure talking to PostgreSQL, with a machine-readable code; refusals the caller can act on are
/// `StoreError`s instead.
public struct PostgresError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public struct Code: RawRepresentable, Sendable, Hashable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// No connection could be had within ``PostgresStore/Configuration/acquireTimeout``: every pooled
        /// connection stayed busy, or the server could not be reached.
        public static let connectionUnavailable = Code(rawValue: "connection_unavailable")
        /// The connection broke during a call (the server restarted or went away); the call may or may not
        /// have applied, and the connection is replaced.
        public static let connectionLost = Code(rawValue: "connection_lost")
        /// The server gave no answer within the call's deadline; the statement was cancelled and the
        /// connection replaced.
        public static let timeout = Code(rawValue: "timeout")
        /// The server refused a statement; ``PostgresError/sqlState`` says why.
        public static let server = Code(rawValue: "server_error")
    }

    public var code: Code
    public var message: String
    /// The server's five-character SQLSTATE (`23505` for a unique violation), for ``Code/server``.
    public var sqlState: String?

    public init(code: Code, message: String, sqlState: String? = nil) {
        self.code = code
        self.message = message
        self.sqlState = sqlState
    }

    public var description: String {
        "\(code.rawValue)\(sqlState.map { " (\($0))" } ?? ""): \(message)"
    }

    /// A unique or primary-key constraint refused a row.
    var isUniqueViolation: Bool { sqlState == "23505" }
    /// The statement ran out of `statement_timeout` or `lock_timeout`.
    var isServerTimeout: Bool { sqlState == "57014" || sqlState == "55P03" }
}
