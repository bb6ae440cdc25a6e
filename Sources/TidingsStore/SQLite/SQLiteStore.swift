import Foundation
import TidingsModel
import TidingsSQLite

/// The embedded ``Store``: one SQLite file in WAL mode, behind one serialised connection.
///
/// ```swift
/// let store = try SQLiteStore(directory: dataDirectory)
/// try store.createApp(AppRecord(id: "app_1", name: "demo", bundleID: "com.example.demo", createdAt: now))
/// ```
///
/// Every method runs in one transaction on the connection's lock, so concurrent calls are serialised;
/// statements are prepared once and cached.
/// Installation upserts and event batches arriving together share one transaction (group commit,
/// ``SQLiteDatabase/groupWrite(_:)``), and each returns only once that transaction has committed; a write
/// that fails is retried alone, so it never takes the others down with it.
///
/// Durability: WAL with `synchronous=NORMAL`. A write is committed to the log before its call returns, so
/// whatever a request was answered for survives the server process crashing or being killed (the
/// kill -9 pilot in platform_facts.md lost nothing). A power loss or kernel crash may lose the commits
/// made since the log was last flushed, which the background checkpointer does every quarter second.
public final class SQLiteStore: Store {
    /// The file name inside the data directory.
    public static let fileName = "tidings.sqlite"

    /// Every write, and reads that belong to a write, go through this connection.
    let database: SQLiteDatabase
    /// Plain reads go through a second connection: in WAL mode it reads the last committed state while
    /// the writer works, so a long export or a key lookup never waits for a write.
    let reader: SQLiteDatabase
    private let checkpointer: WALCheckpointer?
    /// Where the outcome of an event batch written without waiting is handed on: the caller's answer is built,
    /// and the batch freed, here instead of on the single writer, which goes on to the next group.
    let eventCompletions = DispatchQueue(label: "tidings.store.event-completions")
    /// Writes through this store publish here once committed; one process uses the file, so nothing is missed.
    public let changes = StoreChangeFeed()
    /// Seals push credentials and forwarder settings on the way in, opens them on the way out.
    let secrets: SecretCodec

    /// Opens (creating if needed) and migrates the database at `path`.
    ///
    /// - Parameter checkpointInterval: How often a background connection copies the write-ahead log into
    ///   the database, so that requests never wait for the disk flush a checkpoint ends with; nil leaves
    ///   checkpoints to SQLite, inside whichever write crosses its threshold.
    /// - Parameter secretSealer: Encrypts the secrets the store keeps (``SecretsAtRestStore``); nil writes
    ///   them as given and refuses to read encrypted ones.
    public init(
        path: String, checkpointInterval: Duration? = .milliseconds(250), secretSealer: (any SecretSealer)? = nil
    ) throws {
        secrets = SecretCodec(sealer: secretSealer)
        database = try SQLiteDatabase(path: path)
        try database.read { db in
            // 64 MiB of page cache instead of 2 MiB, so indexes stay in memory.
            try db.execute("PRAGMA cache_size = -65536")
            // The background checkpointer copies the log back while requests write; this threshold (~256 MiB)
            // is only a backstop. A checkpoint the writer has to run itself holds the write lock for its whole
            // copy, and with a 64 MiB threshold sustained event ingest reached it every second or so: raising
            // it took POST /v1/events from about 51,000 to 55,000-59,000 events/s (BENCHMARKS.md). The log
            // file keeps the size it reached.
            try db.execute("PRAGMA wal_autocheckpoint = \(checkpointInterval == nil ? 1000 : 65536)")
            // Deleted and overwritten content is zeroed where that costs no extra write, so a secret replaced by
            // its ciphertext (or removed) does not linger in the file's free space.
            try db.execute("PRAGMA secure_delete = FAST")
        }
        try Self.addFunctions(database)
        try Self.migrate(database)
        if path == ":memory:" {
            reader = database
        } else {
            reader = try SQLiteDatabase(path: path)
            try reader.read { try $0.execute("PRAGMA cache_size = -32768") }
            try Self.addFunctions(reader)
        }
        checkpointer =
            if let checkpointInterval, path != ":memory:" {
                try WALCheckpointer(path: path, interval: checkpointInterval)
            } else {
                nil
            }
    }

    /// Opens (creating the directory and file if needed) `tidings.sqlite` in `directory`.
    public convenience init(
        directory: URL, checkpointInterval: Duration? = .milliseconds(250), secretSealer: (any SecretSealer)? = nil
    ) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try self.init(
            path: directory.appendingPathComponent(Self.fileName).path, checkpointInterval: checkpointInterval,
            secretSealer: secretSealer)
    }

    /// Runs `write`, then publishes `change` on ``changes``: only once the write committed, never after it failed.
    func announcing<Result>(_ change: StoreChange, _ write: () throws -> Result) rethrows -> Result {
        let result = try write()
        changes.publish(change)
        return result
    }

    /// The schema version this build migrates to: the number of migrations.
    public static var latestSchemaVersion: Int { migrations.count }

    /// The schema version the database is at.
    public var schemaVersion: Int {
        get throws {
            try database.read { Int(try $0.scalar("PRAGMA user_version")?.integerValue ?? 0) }
        }
    }

    // MARK: Apps

    public func createApp(_ app: AppRecord) throws {
        try database.write { db in
            if try db.scalar("SELECT 1 FROM apps WHERE name = ?1", [.text(app.name)]) != nil {
                throw StoreError(code: .conflict, message: "an app called '\(app.name)' already exists")
            }
            if try db.scalar("SELECT 1 FROM apps WHERE id = ?1", [.text(app.id)]) != nil {
                throw StoreError(code: .conflict, message: "an app with id \(app.id) already exists")
            }
            try db.run(
                """
                INSERT INTO apps (\(Self.appColumns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                """,
                [
                    .text(app.id), .text(app.name), .text(app.bundleID), .integer(app.createdAt),
                    .text(app.identityVerification.rawValue), SQLiteValue(app.requestsPerSecond.map(Int64.init)),
                ])
        }
    }

    public func recordHeartbeat(instanceID: String, now: Int64) throws {
        try database.write { db in
            try db.run(
                """
                INSERT INTO instances (id, heartbeat_at) VALUES (?1, ?2)
                ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at
                """, [.text(instanceID), .integer(now)])
        }
    }

    public func updateApp(_ app: AppRecord) throws {
        try announcing(.app(id: app.id)) {
            try database.write { db in
                let changed = try db.run(
                    """
                    UPDATE apps SET bundle_id = ?2, identity_verification = ?3, requests_per_second = ?4 WHERE id = ?1
                    """,
                    [
                        .text(app.id), .text(app.bundleID), .text(app.identityVerification.rawValue),
                        SQLiteValue(app.requestsPerSecond.map(Int64.init)),
                    ])
                guard changed > 0 else { throw StoreError(code: .notFound, message: "there is no app \(app.id)") }
            }
        }
    }

    public func app(id: String) throws -> AppRecord? {
        try reader.read { db in
            try db.query(
                "SELECT \(Self.appColumns) FROM apps WHERE id = ?1", [.text(id)], row: Self.appRow
            )
            .first
        }
    }

    public func app(named name: String) throws -> AppRecord? {
        try reader.read { db in
            try db.query(
                "SELECT \(Self.appColumns) FROM apps WHERE name = ?1", [.text(name)], row: Self.appRow
            ).first
        }
    }

    public func apps() throws -> [AppRecord] {
        try reader.read { db in
            try db.query("SELECT \(Self.appColumns) FROM apps ORDER BY created_at, id", row: Self.appRow)
        }
    }

    private static let appColumns = "id, name, bundle_id, created_at, identity_verification, requests_per_second"

    private static func appRow(_ row: SQLiteStatement) -> AppRecord {
        AppRecord(
            id: row.text(at: 0), name: row.text(at: 1), bundleID: row.text(at: 2), createdAt: row.int64(at: 3),
            identityVerification: AppRecord.IdentityVerification(rawValue: row.text(at: 4)) ?? .off,
            requestsPerSecond: row.isNull(at: 5) ? nil : Int(row.int64(at: 5)))
    }

    // MARK: Keys

    private static let keyColumns = "id, app_id, kind, hash, hint, created_at, revoked_at"

    public func createKey(_ key: APIKeyRecord) throws {
        try announcing(.key(id: key.id)) {
            try database.write { db in
                if key.kind == .admin {
                    try db.run(
                        "INSERT INTO admin_keys (\(Self.adminKeyColumns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                        [
                            .text(key.id), .text(key.kind.rawValue), .blob(key.hash), .text(key.hint),
                            .integer(key.createdAt), SQLiteValue(key.revokedAt),
                        ])
                    return
                }
                guard try db.scalar("SELECT 1 FROM apps WHERE id = ?1", [.text(key.appID)]) != nil else {
                    throw StoreError(code: .notFound, message: "there is no app \(key.appID)")
                }
                try db.run(
                    "INSERT INTO api_keys (\(Self.keyColumns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                    [
                        .text(key.id), .text(key.appID), .text(key.kind.rawValue), .blob(key.hash), .text(key.hint),
                        .integer(key.createdAt), SQLiteValue(key.revokedAt),
                    ])
            }
        }
    }

    public func key(hash: [UInt8]) throws -> APIKeyRecord? {
        try reader.read { db in
            try db.query(
                "SELECT \(Self.allKeysColumns) WHERE hash = ?1", [.blob(hash)], row: Self.keyRow
            ).first
        }
    }

    public func keys(appID: String?) throws -> [APIKeyRecord] {
        try reader.read { db in
            if let appID {
                return try db.query(
                    "SELECT \(Self.keyColumns) FROM api_keys WHERE app_id = ?1 ORDER BY created_at, id",
                    [.text(appID)], row: Self.keyRow)
            }
            return try db.query("SELECT \(Self.allKeysColumns) ORDER BY created_at, id", row: Self.keyRow)
        }
    }

    @discardableResult
    public func revokeKey(id: String, at: Int64) throws -> APIKeyRecord {
        try announcing(.key(id: id)) {
            try database.write { db in
                for table in ["api_keys", "admin_keys"] {
                    try db.run(
                        "UPDATE \(table) SET revoked_at = ?2 WHERE id = ?1 AND revoked_at IS NULL",
                        [.text(id), .integer(at)])
                }
                guard
                    let key = try db.query("SELECT \(Self.allKeysColumns) WHERE id = ?1", [.text(id)], row: Self.keyRow)
                        .first
                else {
                    throw StoreError(code: .notFound, message: "there is no key \(id)")
                }
                return key
            }
        }
    }

    private static let adminKeyColumns = "id, kind, hash, hint, created_at, revoked_at"
    /// App, server and admin keys as one table (admin keys with an empty app id), for a `WHERE` to follow.
    private static let allKeysColumns = """
        * FROM (SELECT \(keyColumns) FROM api_keys
            UNION ALL SELECT id, '' AS app_id, kind, hash, hint, created_at, revoked_at FROM admin_keys)
        """

    private static func keyRow(_ row: SQLiteStatement) -> APIKeyRecord {
        APIKeyRecord(
            id: row.text(at: 0), appID: row.text(at: 1), kind: APIKeyKind(rawValue: row.text(at: 2)) ?? .app,
            hash: row.blob(at: 3), hint: row.text(at: 4), createdAt: row.int64(at: 5),
            revokedAt: row.isNull(at: 6) ? nil : row.int64(at: 6))
    }
}
