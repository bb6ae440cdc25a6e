import Foundation
import TidingsModel
import TidingsStore

/// The ``Store`` on PostgreSQL, through libpq: for several tidingsd instances sharing one database.
///
/// ```swift
/// let store = try PostgresStore(connectionString: "postgres://tidings@db.internal/tidings")
/// try store.createApp(AppRecord(id: "app_1", name: "demo", bundleID: "com.example.demo", createdAt: now))
/// ```
///
/// Every method runs in one transaction on a connection of the store's bounded pool
/// (``Configuration/maximumConnections``), so it applies entirely or not at all, and calls run in parallel up
/// to the pool's size. Opening the store migrates the schema under an advisory lock, so instances starting
/// together take turns. Events live in a table partitioned by month of arrival, de-duplicated exactly
/// through a separate `event_ids` table; fan-out claims rows with `FOR UPDATE SKIP LOCKED`, so several
/// instances can share one queue. docs/postgres.md describes the schema, the pool and the timeouts.
public final class PostgresStore: Store {
    /// How the store connects and how long it waits.
    public struct Configuration: Sendable {
        /// A libpq connection string: a URI (`postgres://user:password@host:5432/tidings?sslmode=require`) or
        /// `key=value` pairs (`host=/run/postgresql dbname=tidings`). Its parameters override the store's
        /// defaults for `connect_timeout`, `application_name` and TCP keepalives.
        public var connectionString: String
        /// At most this many connections are open at once.
        public var maximumConnections = 10
        /// How long a call waits for a connection (a free one, or a new one while the server is unreachable)
        /// before it fails with ``PostgresError/Code/connectionUnavailable``.
        public var acquireTimeout: Duration = .seconds(5)
        /// How long one connection attempt may take (libpq's `connect_timeout`, whole seconds, at least 2).
        public var connectTimeout: Duration = .seconds(5)
        /// The server cancels a statement running longer (`statement_timeout`); the client gives up 5 seconds
        /// later still, in case the server itself is gone.
        public var statementTimeout: Duration = .seconds(15)
        /// The server gives up waiting for a row or table lock after this (`lock_timeout`).
        public var lockTimeout: Duration = .seconds(5)
        /// The server ends a session left idle inside a transaction this long.
        public var idleInTransactionTimeout: Duration = .seconds(60)
        /// Shown in `pg_stat_activity`.
        public var applicationName = "tidingsd"
        /// How many groups of installation upserts are written at once (each group is one transaction of
        /// every upsert that arrived while the others committed), each on its own connection of the pool.
        /// Four gave the most upserts on two shared cores: a group's round trips and WAL flush leave the
        /// cores idle, which other groups fill (BENCHMARKS.md). Fewer when the pool is smaller: one connection
        /// is always left to the other calls.
        public var concurrentUpsertGroups = 4
        /// How many installations the store creates (registrations and imports) before it looks whether they
        /// have outgrown PostgreSQL's statistics, and analyzes them if so (``installationsCreated(_:)``); fewer
        /// change no plan that matters, as a table that small is read in milliseconds.
        public var analyzeAfterCreatedInstallations = 10_000
        /// Encrypts the secrets the store keeps (``SecretsAtRestStore``); nil writes them as given and refuses
        /// to read encrypted ones.
        public var secretSealer: (any SecretSealer)?

        public init(connectionString: String) {
            self.connectionString = connectionString
        }
    }

    public let configuration: Configuration
    let pool: PostgresPool
    /// Months (`year * 100 + month`) whose event partition is known to exist.
    let knownPartitions = LockedBox<Set<Int>>([])
    /// Installations created since the last analysis of the table (``installationsCreated(_:)``).
    let installationGrowth: LockedBox<InstallationGrowth>

    /// What ``installationsCreated(_:)`` counts: installations this store created since it last analyzed them,
    /// when to look again, and whether a look is running.
    struct InstallationGrowth {
        var created = 0
        var nextLook: Int
        var looking = false
    }
    /// Writes that change what instances cache publish here once committed, and notify every instance
    /// (`NOTIFY`, delivered on commit); the listener, started when the first observer arrives, publishes
    /// what the others notify.
    public let changes: StoreChangeFeed
    let listener: PostgresChangeListener
    /// Installation upserts waiting to be written together.
    let upserts: GroupCommitter<PostgresUpsert>
    /// Seals push credentials and forwarder settings on the way in, opens them on the way out.
    let secrets: SecretCodec

    /// Connects, migrates the schema to this version and makes sure this month's and next month's event
    /// partitions exist.
    public init(configuration: Configuration) throws {
        self.configuration = configuration
        installationGrowth = LockedBox(InstallationGrowth(nextLook: configuration.analyzeAfterCreatedInstallations))
        secrets = SecretCodec(sealer: configuration.secretSealer)
        pool = PostgresPool(
            settings: PostgresConnection.Settings(
                connectionString: configuration.connectionString, applicationName: configuration.applicationName,
                connectTimeout: configuration.connectTimeout, statementTimeout: configuration.statementTimeout,
                lockTimeout: configuration.lockTimeout,
                idleInTransactionTimeout: configuration.idleInTransactionTimeout),
            maximumConnections: configuration.maximumConnections, acquireTimeout: configuration.acquireTimeout)
        // One connection is always left to the other calls, however small the pool.
        upserts = GroupCommitter(
            maximumGroups: min(configuration.concurrentUpsertGroups, configuration.maximumConnections - 1))
        let listener = PostgresChangeListener(settings: pool.settings)
        self.listener = listener
        // Until the listener has connected, other instances' changes go unheard.
        changes = StoreChangeFeed(hearsOtherProcesses: false) { feed in listener.start(publishingTo: feed) }
        try pool.withConnection { try Self.migrate($0) }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        try ensureEventPartition(receivedAt: now)
        try ensureEventPartition(receivedAt: EventPartition(containing: now).end)
    }

    /// Opens the store at `connectionString` with the default pool and timeouts.
    public convenience init(connectionString: String) throws {
        try self.init(configuration: Configuration(connectionString: connectionString))
    }

    deinit {
        listener.stop()
        pool.closeIdle()
    }

    /// How many times the change listener has connected and begun listening: 0 before anything observed
    /// ``changes``, 1 once it listens, one more after each reconnection (a PostgreSQL restart).
    public var listenerConnections: Int { listener.connectionCount }

    /// The schema version the database is at.
    public var schemaVersion: Int {
        get throws { try read { try Self.schemaVersion($0) } }
    }

    // MARK: Running

    /// Runs `body` in a transaction; a connection found dead before anything was sent (a server restart
    /// since it was last used) is replaced and the call tried again.
    @discardableResult
    func write<Result>(_ body: (PostgresConnection) throws -> Result) throws -> Result {
        var attempts = 0
        while true {
            do {
                return try pool.withConnection { connection in try connection.transaction { try body(connection) } }
            } catch let stale as StaleConnection {
                attempts += 1
                if attempts > pool.maximumConnections { throw stale.error }
            }
        }
    }

    /// Runs `body` in a transaction that also notifies every instance listening of `change` (PostgreSQL
    /// delivers it only if the transaction commits), and publishes it in this process once committed.
    @discardableResult
    func write<Result>(announcing change: StoreChange, _ body: (PostgresConnection) throws -> Result) throws
        -> Result
    {
        let result = try write { db in
            let result = try body(db)
            try db.run(
                "SELECT pg_notify($1, $2)",
                [.text(StoreChange.notificationChannel), .text(change.notificationPayload)])
            return result
        }
        changes.publish(change)
        return result
    }

    /// Runs a read (one statement, or a transaction it opens itself), trying again on another connection when
    /// the first was lost: reads change nothing, so repeating one is safe.
    @discardableResult
    func read<Result>(_ body: (PostgresConnection) throws -> Result) throws -> Result {
        var attempts = 0
        while true {
            do {
                return try pool.withConnection(body)
            } catch let error as PostgresError where error.code == .connectionLost {
                attempts += 1
                if attempts > pool.maximumConnections { throw error }
            }
        }
    }

    /// Runs `statement` in a transaction of its own under ``indexLookupsOnlySQL``, in one round trip: for
    /// look-ups by key whose plans statistics that underrate a table must not turn into walks of it.
    func readByIndexLookups<Row>(_ statement: PostgresConnection.Statement, row: (PostgresRow) -> Row) throws
        -> [Row]
    {
        let statements =
            (["BEGIN"] + Self.indexLookupsOnlySQL).map { PostgresConnection.Statement(sql: $0) } + [
                statement, PostgresConnection.Statement(sql: "COMMIT"),
            ]
        return try read { db in
            do {
                return try db.pipeline(statements, row: row).flatMap(\.rows)
            } catch {
                if db.inTransaction { try? db.execute("ROLLBACK") }
                throw error
            }
        }
    }

    /// `columns` (a list such as ``installationColumns``) each prefixed with `alias`, for a query that joins a
    /// table with columns of the same names.
    static func qualified(_ columns: String, by alias: String) -> String {
        columns.split(separator: ",").map { "\(alias)." + $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .joined(separator: ", ")
    }

    // MARK: Instances

    /// Written with the database's clock, not `now`: instances compare heartbeats with one another's, and a
    /// host whose clock is off must not look dead, nor make the others look dead.
    public func recordHeartbeat(instanceID: String, now: Int64) throws {
        try write { db in
            try db.run(
                """
                INSERT INTO instances (id, heartbeat_at) VALUES ($1, \(Self.databaseNow))
                ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at
                """, [.text(instanceID)])
        }
    }

    // MARK: Apps

    private static let appColumns = "id, name, bundle_id, created_at, identity_verification, requests_per_second"

    public func createApp(_ app: AppRecord) throws {
        do {
            try write { db in
                if try db.scalar("SELECT 1 FROM apps WHERE name = $1", [.text(app.name)]) != nil {
                    throw StoreError(code: .conflict, message: "an app called '\(app.name)' already exists")
                }
                if try db.scalar("SELECT 1 FROM apps WHERE id = $1", [.text(app.id)]) != nil {
                    throw StoreError(code: .conflict, message: "an app with id \(app.id) already exists")
                }
                try db.run(
                    "INSERT INTO apps (\(Self.appColumns)) VALUES ($1, $2, $3, $4, $5, $6)",
                    [
                        .text(app.id), .text(app.name), .text(app.bundleID), .integer(app.createdAt),
                        .text(app.identityVerification.rawValue), PostgresValue(app.requestsPerSecond.map(Int64.init)),
                    ])
            }
        } catch let error as PostgresError where error.isUniqueViolation {
            // Another instance created it between the check and the insert.
            throw StoreError(
                code: .conflict, message: "an app called '\(app.name)' or with id \(app.id) already exists")
        }
    }

    public func updateApp(_ app: AppRecord) throws {
        try write(announcing: .app(id: app.id)) { db in
            let changed = try db.run(
                "UPDATE apps SET bundle_id = $2, identity_verification = $3, requests_per_second = $4 WHERE id = $1",
                [
                    .text(app.id), .text(app.bundleID), .text(app.identityVerification.rawValue),
                    PostgresValue(app.requestsPerSecond.map(Int64.init)),
                ])
            guard changed > 0 else { throw StoreError(code: .notFound, message: "there is no app \(app.id)") }
        }
    }

    public func app(id: String) throws -> AppRecord? {
        try read { db in
            try db.query("SELECT \(Self.appColumns) FROM apps WHERE id = $1", [.text(id)], row: Self.appRow).first
        }
    }

    public func app(named name: String) throws -> AppRecord? {
        try read { db in
            try db.query("SELECT \(Self.appColumns) FROM apps WHERE name = $1", [.text(name)], row: Self.appRow).first
        }
    }

    public func apps() throws -> [AppRecord] {
        try read { db in
            try db.query("SELECT \(Self.appColumns) FROM apps ORDER BY created_at, id", row: Self.appRow)
        }
    }

    private static func appRow(_ row: PostgresRow) -> AppRecord {
        AppRecord(
            id: row.text(0), name: row.text(1), bundleID: row.text(2), createdAt: row.int64(3),
            identityVerification: AppRecord.IdentityVerification(rawValue: row.text(4)) ?? .off,
            requestsPerSecond: row.optionalInt64(5).map(Int.init))
    }

    // MARK: Keys

    private static let keyColumns = "id, app_id, kind, hash, hint, created_at, revoked_at"
    private static let adminKeyColumns = "id, kind, hash, hint, created_at, revoked_at"
    /// App, server and admin keys as one table (admin keys with an empty app id), for a `WHERE` to follow.
    private static let allKeysColumns = """
        * FROM (SELECT \(keyColumns) FROM api_keys
            UNION ALL SELECT id, '' AS app_id, kind, hash, hint, created_at, revoked_at FROM admin_keys) AS k
        """

    public func createKey(_ key: APIKeyRecord) throws {
        try write(announcing: .key(id: key.id)) { db in
            if key.kind == .admin {
                try db.run(
                    "INSERT INTO admin_keys (\(Self.adminKeyColumns)) VALUES ($1, $2, $3, $4, $5, $6)",
                    [
                        .text(key.id), .text(key.kind.rawValue), .bytes(key.hash), .text(key.hint),
                        .integer(key.createdAt), PostgresValue(key.revokedAt),
                    ])
                return
            }
            guard try db.scalar("SELECT 1 FROM apps WHERE id = $1", [.text(key.appID)]) != nil else {
                throw StoreError(code: .notFound, message: "there is no app \(key.appID)")
            }
            try db.run(
                "INSERT INTO api_keys (\(Self.keyColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7)",
                [
                    .text(key.id), .text(key.appID), .text(key.kind.rawValue), .bytes(key.hash), .text(key.hint),
                    .integer(key.createdAt), PostgresValue(key.revokedAt),
                ])
        }
    }

    public func key(hash: [UInt8]) throws -> APIKeyRecord? {
        try read { db in
            try db.query("SELECT \(Self.allKeysColumns) WHERE hash = $1", [.bytes(hash)], row: Self.keyRow).first
        }
    }

    public func keys(appID: String?) throws -> [APIKeyRecord] {
        try read { db in
            if let appID {
                return try db.query(
                    "SELECT \(Self.keyColumns) FROM api_keys WHERE app_id = $1 ORDER BY created_at, id",
                    [.text(appID)], row: Self.keyRow)
            }
            return try db.query("SELECT \(Self.allKeysColumns) ORDER BY created_at, id", row: Self.keyRow)
        }
    }

    @discardableResult
    public func revokeKey(id: String, at: Int64) throws -> APIKeyRecord {
        try write(announcing: .key(id: id)) { db in
            for table in ["api_keys", "admin_keys"] {
                try db.run(
                    "UPDATE \(table) SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL",
                    [.text(id), .integer(at)])
            }
            guard
                let key = try db.query("SELECT \(Self.allKeysColumns) WHERE id = $1", [.text(id)], row: Self.keyRow)
                    .first
            else {
                throw StoreError(code: .notFound, message: "there is no key \(id)")
            }
            return key
        }
    }

    private static func keyRow(_ row: PostgresRow) -> APIKeyRecord {
        APIKeyRecord(
            id: row.text(0), appID: row.text(1), kind: APIKeyKind(rawValue: row.text(2)) ?? .app, hash: row.blob(3),
            hint: row.text(4), createdAt: row.int64(5), revokedAt: row.optionalInt64(6))
    }
}
