import TidingsSQLite

/// Why the event store could not do what was asked: a machine-readable code and a message.
///
/// Invalid events are refused with ``EventValidationError`` instead (the same error the server uses).
public struct EventStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable, machine-readable reason.
    public struct Code: RawRepresentable, Sendable, Hashable, Codable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// There is no store at the path, and the configuration says not to create one.
        public static let notFound = Code(rawValue: "store_not_found")
        /// The file at the path is not an SQLite database (garbage, or another format).
        public static let notADatabase = Code(rawValue: "not_a_database")
        /// The file is an SQLite database, but not an event store (it has tables of its own).
        public static let notAnEventStore = Code(rawValue: "not_an_event_store")
        /// The database is damaged.
        public static let corrupt = Code(rawValue: "corrupt")
        /// A newer SDK wrote the store with a schema this version does not know.
        public static let schemaTooNew = Code(rawValue: "schema_too_new")
        /// Another process held the write lock past the busy timeout.
        public static let busy = Code(rawValue: "busy")
        /// The disk is full.
        public static let diskFull = Code(rawValue: "disk_full")
        /// Any other storage failure.
        public static let storage = Code(rawValue: "storage")
        /// The caller passed a value the store cannot use.
        public static let invalidArgument = Code(rawValue: "invalid_argument")
    }

    public var code: Code
    public var message: String
    /// The SQLite result code behind the failure, when there is one.
    public var sqliteCode: Int32?

    public init(code: Code, message: String, sqliteCode: Int32? = nil) {
        self.code = code
        self.message = message
        self.sqliteCode = sqliteCode
    }

    public var description: String { "\(code.rawValue): \(message)" }

    /// Classifies an SQLite failure (by its primary result code) into a store error.
    init(_ error: SQLiteError, path: String) {
        let code: Code =
            // SQLITE_IOERR_SHORT_READ (522): the file is shorter than its own header says, i.e. cut off.
            switch error.code == 522 ? 11 : error.primaryCode {
            case 5, 6: .busy
            case 11: .corrupt
            case 13: .diskFull
            case 26: .notADatabase
            default: .storage
            }
        self.init(code: code, message: "\(path): \(error.message)", sqliteCode: error.code)
    }

    /// Runs `body`, turning an SQLite failure into a store error and passing any other error through.
    static func wrapping<Result>(path: String, _ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as SQLiteError {
            throw EventStoreError(error, path: path)
        }
    }
}
