import Foundation
import TidingsSQLite
import TidingsStore

extension PostgresStore {
    /// One table's rows in the SQLite file and in PostgreSQL after a copy.
    public struct CopiedTable: Sendable, Equatable {
        public var name: String
        public var sourceRows: Int
        public var copiedRows: Int
    }

    /// Tables in the order their foreign keys need; tables both schemas have beyond these (added by later
    /// migrations) follow in name order. Instances, leases and rate schedules describe running processes and are
    /// not copied; `event_ids` and `event_ranges` are made from the copied events.
    static let copyOrder = [
        "apps", "api_keys", "admin_keys", "identity_keys", "push_credentials", "installations", "user_tags", "app_tags",
        "messages",
        "message_deliveries", "events",
    ]
    static let notCopied: Set<String> = [
        "instances", "leases", "rate_schedules", "event_ids", "event_ranges", "schema_version",
    ]
    /// Rows read from SQLite and pipelined to PostgreSQL at a time.
    static let copyBatch = 1000

    /// Copies everything a SQLite store holds (`tidingsd store copy`) into this database, which must hold no
    /// apps yet, in one transaction, then counts every table on both sides.
    ///
    /// The SQLite file is first migrated to this build's schema (so its columns are this schema's) and read
    /// in one read transaction: a consistent snapshot, even while a tidingsd still writes to it (what it writes
    /// afterwards is not copied, so stop it first to move a deployment). Columns are matched by name and
    /// converted by PostgreSQL's type (SQLite's 0/1 to `boolean`, blobs to `bytea`). Claimed deliveries arrive
    /// pending: their claims belonged to the SQLite store's process.
    /// - Throws: ``StoreError/Code/conflict`` when this database already holds apps, or when a count differs
    ///   after the copy; the copy is then rolled back (or, for a count, reported with the table).
    public func copy(fromSQLiteAt path: String) throws -> [CopiedTable] {
        guard FileManager.default.fileExists(atPath: path) else {
            throw StoreError(code: .notFound, message: "there is no SQLite store at \(path)")
        }
        _ = try SQLiteStore(path: path, checkpointInterval: nil)
        let source = try SQLiteDatabase(path: path)
        return try source.read { sqlite in
            try sqlite.execute("BEGIN")
            defer { try? sqlite.execute("COMMIT") }
            let sourceTables = Set(
                try sqlite.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'") {
                    $0.text(at: 0)
                })
            let targetTables = Set(
                try read { db in
                    try db.query(
                        """
                        SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                        WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition
                            AND n.nspname = ANY (current_schemas(false))
                        """
                    ) { $0.text(0) }
                })
            let shared = sourceTables.intersection(targetTables).subtracting(Self.notCopied)
            let tables = Self.copyOrder.filter(shared.contains) + shared.subtracting(Self.copyOrder).sorted()
            try write { db in
                // Statements here are as long as the tables: the store's timeout is for requests.
                try db.execute("SET LOCAL statement_timeout = 0")
                if try db.scalar("SELECT COUNT(*) FROM apps") ?? 0 > 0 {
                    throw StoreError(
                        code: .conflict,
                        message: "the PostgreSQL database already holds apps; copy into an empty database")
                }
                for table in tables { try copyTable(table, from: sqlite, to: db) }
                // The claims were the SQLite process's, which is stopped (or will not send to this database).
                try db.execute(
                    """
                    UPDATE message_deliveries SET state = 'pending', claimed_by = NULL, claim_expires_at = NULL
                    WHERE state = 'claimed'
                    """)
                // Exact de-duplication needs every copied event's id, and new events numbers after the copied.
                try db.execute(
                    "INSERT INTO event_ids (app_id, event_id, received_at) SELECT app_id, event_id, received_at FROM events"
                )
                // A range per copied event and value (SQLite's ranges have no `received_at`); new batches' ranges
                // start after them, as their `seq`s do.
                try db.execute(
                    EventScope.allCases.map { scope in
                        """
                        INSERT INTO event_ranges (app_id, scope, scope_id, first_seq, last_seq, received_at)
                        SELECT app_id, '\(scope.rawValue)', \(scope.column), seq, seq, received_at FROM events
                        WHERE \(scope.column) IS NOT NULL
                        """
                    }.joined(separator: ";\n"))
                try db.execute("SELECT setval('events_seq', GREATEST((SELECT MAX(seq) FROM events), 1))")
            }
            var counts: [CopiedTable] = []
            for table in tables {
                let sourceRows = Int(try sqlite.scalar("SELECT COUNT(*) FROM \"\(table)\"")?.integerValue ?? 0)
                let copiedRows = Int(try read { db in try db.scalar("SELECT COUNT(*) FROM \"\(table)\"") } ?? 0)
                counts.append(CopiedTable(name: table, sourceRows: sourceRows, copiedRows: copiedRows))
            }
            if let wrong = counts.first(where: { $0.sourceRows != $0.copiedRows }) {
                throw StoreError(
                    code: .conflict,
                    message:
                        "\(wrong.name): \(wrong.sourceRows) rows in SQLite but \(wrong.copiedRows) in PostgreSQL after the copy"
                )
            }
            return counts
        }
    }

    /// Copies one table, `copyBatch` rows at a time in `rowid` order, each batch pipelined.
    private func copyTable(_ table: String, from sqlite: SQLiteConnection, to db: PostgresConnection) throws {
        let sourceColumns = try sqlite.query("PRAGMA table_info(\"\(table)\")") { $0.text(at: 1) }
        let targetTypes = Dictionary(
            try db.query(
                "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = $1", [.text(table)]
            ) { ($0.text(0), $0.text(1)) }, uniquingKeysWith: { first, _ in first })
        let columns = sourceColumns.filter { targetTypes[$0] != nil }
        let types = columns.map { targetTypes[$0] ?? "text" }
        let quoted = columns.map { "\"\($0)\"" }.joined(separator: ", ")
        let insert = """
            INSERT INTO \(table) (\(quoted)) VALUES (\((1...columns.count).map { "$\($0)" }.joined(separator: ", ")))
            """
        if table == "events" {
            // Partitions for every month the events span, so none lands in the default partition.
            let range =
                try sqlite.query("SELECT MIN(received_at), MAX(received_at) FROM events WHERE seq IS NOT NULL") {
                    $0.isNull(at: 0) ? nil : ($0.int64(at: 0), $0.int64(at: 1))
                }.first ?? nil
            if let (first, last) = range {
                var month = EventPartition(containing: first)
                while month.start <= last {
                    try db.execute(
                        """
                        CREATE TABLE IF NOT EXISTS \(month.name) PARTITION OF events
                        FOR VALUES FROM (\(month.start)) TO (\(month.end))
                        """)
                    month = EventPartition(containing: month.end)
                }
            }
        }
        var after: Int64 = .min
        while true {
            var lastRowID = after
            let rows = try sqlite.query(
                "SELECT rowid, \(quoted) FROM \"\(table)\" WHERE rowid > ?1 ORDER BY rowid LIMIT ?2",
                [.integer(after), .integer(Int64(Self.copyBatch))]
            ) { statement -> [PostgresValue] in
                lastRowID = statement.int64(at: 0)
                return types.indices.map { index in
                    Self.converted(statement.value(at: Int32(index + 1)), to: types[index])
                }
            }
            if rows.isEmpty { return }
            _ = try db.pipeline(insert, rows)
            after = lastRowID
        }
    }

    private static func converted(_ value: SQLiteValue, to type: String) -> PostgresValue {
        switch (value, type) {
        case (.null, _): .null
        case (.integer(let number), "boolean"): .boolean(number != 0)
        case (.integer(let number), _): .integer(number)
        case (.real(let number), _): .text(String(number))
        case (.text(let text), _): .text(text)
        case (.blob(let bytes), "bytea"): .bytes(bytes)
        case (.blob(let bytes), _): .text(String(decoding: bytes, as: UTF8.self))
        }
    }
}
