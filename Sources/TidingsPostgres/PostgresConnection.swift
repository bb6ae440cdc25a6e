import CLibPQ
import Foundation

/// One libpq connection: prepared statements cached by their SQL, every wait bounded by a deadline.
///
/// Not thread-safe by itself: the pool hands it to one caller at a time. Statements are sent with the
/// asynchronous libpq calls and their results awaited with `poll` on the connection's socket, so a call on a
/// dead or silent server ends with ``PostgresError/Code/timeout`` instead of hanging; the statement is
/// cancelled and the connection is marked broken, so the pool replaces it.
final class PostgresConnection: @unchecked Sendable {
    // @unchecked: used by one caller at a time; the pool's lock orders the hand-overs.

    /// What every connection of a store is opened with.
    struct Settings: Sendable {
        var connectionString: String
        var applicationName: String
        var connectTimeout: Duration
        var statementTimeout: Duration
        var lockTimeout: Duration
        var idleInTransactionTimeout: Duration
        /// How long the client waits for any answer: past the server's own timeouts, so those fire first.
        var callTimeout: Duration { statementTimeout + .seconds(5) }
    }

    private let handle: OpaquePointer
    private let settings: Settings
    /// Statement name by SQL text.
    private var prepared: [String: String] = [:]
    /// Set when the connection can no longer be trusted (lost, timed out, protocol out of step).
    private(set) var isBroken = false
    /// At most this many statements are kept prepared; rarer shapes run unnamed.
    private static let preparedLimit = 256

    init(settings: Settings) throws(PostgresError) {
        self.settings = settings
        let seconds = max(2, Int(settings.connectTimeout.components.seconds))
        // Our defaults first: the connection string (`dbname`, expanded) overrides them.
        let parameters: [(String, String)] = [
            ("connect_timeout", String(seconds)), ("application_name", settings.applicationName),
            ("keepalives", "1"), ("keepalives_idle", "30"), ("keepalives_interval", "10"), ("keepalives_count", "3"),
            ("dbname", settings.connectionString),
        ]
        let keywords = parameters.map { strdup($0.0) }
        let values = parameters.map { strdup($0.1) }
        defer {
            keywords.forEach { free($0) }
            values.forEach { free($0) }
        }
        let connection = (keywords.map { UnsafePointer($0) } + [nil]).withUnsafeBufferPointer { keywordList in
            (values.map { UnsafePointer($0) } + [nil]).withUnsafeBufferPointer { valueList in
                PQconnectdbParams(keywordList.baseAddress, valueList.baseAddress, 1)
            }
        }
        guard let connection else {
            throw PostgresError(code: .connectionUnavailable, message: "libpq could not allocate a connection")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = Self.errorMessage(connection)
            PQfinish(connection)
            throw PostgresError(code: .connectionUnavailable, message: "cannot connect to PostgreSQL: \(message)")
        }
        // Notices (`relation already exists, skipping`) are not errors; libpq would print them to stderr.
        _ = PQsetNoticeProcessor(connection, { _, _ in }, nil)
        handle = connection
        try applySessionSettings()
    }

    deinit { PQfinish(handle) }

    /// Whether the connection may be handed out again.
    var isHealthy: Bool {
        !isBroken && PQstatus(handle) == CONNECTION_OK && PQtransactionStatus(handle) == PQTRANS_IDLE
    }

    /// Reconnects with the same parameters (`PQreset`) and applies the session settings again.
    func reset() throws(PostgresError) {
        PQreset(handle)
        prepared = [:]
        guard PQstatus(handle) == CONNECTION_OK else {
            isBroken = true
            throw PostgresError(
                code: .connectionUnavailable, message: "cannot reconnect to PostgreSQL: \(Self.errorMessage(handle))")
        }
        isBroken = false
        try applySessionSettings()
    }

    /// The timeouts, UTC, and no JIT compilation: the store's statements are short, and planned with bounds
    /// (spans of `seq`, windows) the planner cannot size, so their estimated cost can pass `jit_above_cost`
    /// while they run in a millisecond or two; compiling one took about 35 ms (a device's timeline through
    /// its event ranges: 165 ms with JIT, 2 ms without).
    private func applySessionSettings() throws(PostgresError) {
        func milliseconds(_ duration: Duration) -> Int64 {
            duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        }
        try execute(
            """
            SET statement_timeout = \(milliseconds(settings.statementTimeout));
            SET lock_timeout = \(milliseconds(settings.lockTimeout));
            SET idle_in_transaction_session_timeout = \(milliseconds(settings.idleInTransactionTimeout));
            SET TIME ZONE 'UTC';
            SET jit = off
            """)
    }

    // MARK: Statements

    /// Runs one or more statements without parameters (the simple query protocol).
    func execute(_ sql: String) throws(PostgresError) {
        let deadline = ContinuousClock.now + settings.callTimeout
        guard PQsendQuery(handle, sql) == 1 else { throw lost() }
        try finish(deadline: deadline) { _ in }
    }

    /// Runs a statement and maps each row it returns.
    func query<Row>(_ sql: String, _ parameters: [PostgresValue] = [], row: (PostgresRow) throws -> Row) throws
        -> [Row]
    {
        let deadline = ContinuousClock.now + settings.callTimeout
        try send(sql, parameters, deadline: deadline)
        var rows: [Row] = []
        var failure: (any Error)?
        try finish(deadline: deadline) { result in
            guard failure == nil else { return }
            do {
                for index in 0..<PQntuples(result) { rows.append(try row(PostgresRow(result: result, row: index))) }
            } catch { failure = error }
        }
        if let failure { throw failure }
        return rows
    }

    /// Runs a statement; returns how many rows it changed.
    @discardableResult
    func run(_ sql: String, _ parameters: [PostgresValue] = []) throws(PostgresError) -> Int {
        let deadline = ContinuousClock.now + settings.callTimeout
        try send(sql, parameters, deadline: deadline)
        var changed = 0
        try finish(deadline: deadline) { result in changed = Self.changedRows(result) }
        return changed
    }

    /// The first column of the first row, if any.
    func scalar(_ sql: String, _ parameters: [PostgresValue] = []) throws -> Int64? {
        try query(sql, parameters) { $0.optionalInt64(0) }.first ?? nil
    }

    /// Runs one prepared statement once per parameter list in pipeline mode: a chunk of statements goes out
    /// in one write and their results come back together, instead of one round trip each. Meant for inside
    /// a transaction; the first error fails the call (and the rest of its chunk is skipped by the server).
    /// - Returns: How many rows each run changed, in order.
    func pipeline(_ sql: String, _ parameterLists: [[PostgresValue]], chunkSize: Int = 64) throws(PostgresError)
        -> [Int]
    {
        var changed: [Int] = []
        changed.reserveCapacity(parameterLists.count)
        var start = 0
        while start < parameterLists.count {
            let chunk = parameterLists[start..<min(start + max(1, chunkSize), parameterLists.count)]
            start += chunk.count
            // Each chunk is one exchange with its own deadline: a long batch is many short waits, not one long one.
            changed += try pipeline(chunk.map { Statement(sql: sql, parameters: $0) }) { _ in () }.map(\.changed)
        }
        return changed
    }

    /// One statement of ``pipeline(_:row:)``.
    struct Statement {
        var sql: String
        var parameters: [PostgresValue] = []
    }

    /// Sends `statements` in pipeline mode, in one write, and reads their results in one go: one round trip
    /// for all of them. Transaction control (`BEGIN`, `COMMIT`) may be among them; without it each
    /// statement is its own transaction. Every statement is prepared once per connection.
    ///
    /// - Parameter row: maps the rows of statements that return some; statements that return none give [].
    /// - Returns: for each statement, its rows and how many rows it changed.
    /// - Throws: the first error; the server skips the statements after it (an open transaction is left
    ///   aborted, for the caller to roll back).
    func pipeline<Row>(_ statements: [Statement], row: (PostgresRow) -> Row) throws(PostgresError)
        -> [(rows: [Row], changed: Int)]
    {
        guard !statements.isEmpty else { return [] }
        let deadline = ContinuousClock.now + settings.callTimeout
        var names: [String] = []
        names.reserveCapacity(statements.count)
        for statement in statements {
            guard let name = try preparedName(statement.sql, deadline: deadline, force: true) else {
                throw broken("statement not prepared")
            }
            names.append(name)
        }
        guard PQenterPipelineMode(handle) == 1 else { throw broken("cannot enter pipeline mode") }
        for (statement, name) in zip(statements, names) {
            let sent = Self.withParameters(statement.parameters) { count, values, lengths, formats in
                PQsendQueryPrepared(handle, name, count, values, lengths, formats, 1)
            }
            guard sent == 1 else { throw lost() }
        }
        guard PQpipelineSync(handle) == 1 else { throw lost() }
        var results: [(rows: [Row], changed: Int)] = []
        results.reserveCapacity(statements.count)
        var firstError: PostgresError?
        for _ in statements {
            var rows: [Row] = []
            var changed = 0
            while let result = try nextResult(deadline: deadline) {
                defer { PQclear(result) }
                switch PQresultStatus(result) {
                case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
                    changed = Self.changedRows(result)
                    for index in 0..<PQntuples(result) { rows.append(row(PostgresRow(result: result, row: index))) }
                case PGRES_PIPELINE_ABORTED: break
                default: firstError = firstError ?? serverError(result)
                }
            }
            results.append((rows, changed))
        }
        guard let sync = try nextResult(deadline: deadline) else { throw broken("pipeline sync missing") }
        let syncStatus = PQresultStatus(sync)
        PQclear(sync)
        guard syncStatus == PGRES_PIPELINE_SYNC, PQexitPipelineMode(handle) == 1 else {
            throw broken("pipeline out of step")
        }
        if let firstError { throw firstError }
        return results
    }

    /// Whether a transaction is open on the connection (in progress or aborted by an error).
    var inTransaction: Bool { !isBroken && PQtransactionStatus(handle) != PQTRANS_IDLE }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    ///
    /// - Throws: ``StaleConnection`` when the connection turns out dead before anything was sent, so the
    ///   caller can safely try again on another.
    func transaction<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            try execute("BEGIN")
        } catch {
            if error.code == .connectionLost { throw StaleConnection(error: error) }
            throw error
        }
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            if !isBroken && PQtransactionStatus(handle) != PQTRANS_IDLE { try? execute("ROLLBACK") }
            throw error
        }
    }

    // MARK: Notifications

    /// Starts listening on `channel` (`LISTEN`): notifications sent on it from now on are queued on this
    /// connection for ``notifications(waitingUpTo:)``.
    func listen(_ channel: String) throws(PostgresError) {
        try execute("LISTEN \(Self.quotedIdentifier(channel))")
    }

    /// The payloads of the notifications that arrived, waiting up to `timeout` on the socket when none has
    /// yet; empty when none came in that time.
    /// - Throws: ``PostgresError/Code/connectionLost`` when the server closed the connection (a restart).
    func notifications(waitingUpTo timeout: Duration) throws(PostgresError) -> [String] {
        var payloads = drainNotifications()
        guard payloads.isEmpty else { return payloads }
        let milliseconds = max(
            1, timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        let ready = tidings_pq_wait_readable(PQsocket(handle), Int32(min(milliseconds, 60_000)))
        if ready < 0 && errno != EINTR { throw broken("poll failed: \(String(cString: strerror(errno)))") }
        // A closed socket reads as ready: consuming finds the end, or leaves the connection marked bad.
        if ready > 0 && PQconsumeInput(handle) == 0 { throw lost() }
        if PQstatus(handle) != CONNECTION_OK { throw lost() }
        payloads = drainNotifications()
        return payloads
    }

    private func drainNotifications() -> [String] {
        var payloads: [String] = []
        while let notification = PQnotifies(handle) {
            payloads.append(String(cString: notification.pointee.extra))
            PQfreemem(notification)
        }
        return payloads
    }

    private static func quotedIdentifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    // MARK: Protocol

    private func send(_ sql: String, _ parameters: [PostgresValue], deadline: ContinuousClock.Instant)
        throws(PostgresError)
    {
        let name = try preparedName(sql, deadline: deadline, force: false)
        let sent = Self.withParameters(parameters) { count, values, lengths, formats in
            if let name {
                PQsendQueryPrepared(handle, name, count, values, lengths, formats, 1)
            } else {
                PQsendQueryParams(handle, sql, count, nil, values, lengths, formats, 1)
            }
        }
        guard sent == 1 else { throw lost() }
    }

    /// The name `sql` is prepared under, preparing it first; nil when the cache is full (run it unnamed),
    /// unless `force`.
    private func preparedName(_ sql: String, deadline: ContinuousClock.Instant, force: Bool) throws(PostgresError)
        -> String?
    {
        if let name = prepared[sql] { return name }
        guard force || prepared.count < Self.preparedLimit else { return nil }
        let name = "tidings_\(prepared.count + 1)"
        guard PQsendPrepare(handle, name, sql, 0, nil) == 1 else { throw lost() }
        try finish(deadline: deadline) { _ in }
        prepared[sql] = name
        return name
    }

    /// Reads every result of the statement in flight, passing each successful one to `handle`; throws the
    /// first error once the connection is back in step.
    private func finish(deadline: ContinuousClock.Instant, _ consume: (OpaquePointer) -> Void) throws(PostgresError) {
        var firstError: PostgresError?
        while let result = try nextResult(deadline: deadline) {
            defer { PQclear(result) }
            switch PQresultStatus(result) {
            case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
                if firstError == nil { consume(result) }
            default:
                firstError = firstError ?? serverError(result)
            }
        }
        if let firstError { throw firstError }
    }

    /// The next result, waiting for the socket until `deadline`; nil when the statement has no more.
    private func nextResult(deadline: ContinuousClock.Instant) throws(PostgresError) -> OpaquePointer? {
        while PQisBusy(handle) == 1 {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else {
                cancel()
                throw PostgresError(
                    code: .timeout, message: "PostgreSQL did not answer within \(settings.callTimeout)")
            }
            let milliseconds = min(
                1000,
                max(1, remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000))
            let ready = tidings_pq_wait_readable(PQsocket(handle), Int32(milliseconds))
            if ready < 0 && errno != EINTR { throw broken("poll failed: \(String(cString: strerror(errno)))") }
            if ready > 0 && PQconsumeInput(handle) == 0 { throw lost() }
        }
        return PQgetResult(handle)
    }

    /// Asks the server to stop the statement in flight and gives the connection up.
    private func cancel() {
        if let cancel = PQgetCancel(handle) {
            var buffer = [CChar](repeating: 0, count: 256)
            _ = PQcancel(cancel, &buffer, Int32(buffer.count))
            PQfreeCancel(cancel)
        }
        isBroken = true
    }

    private func lost() -> PostgresError {
        isBroken = true
        return PostgresError(
            code: .connectionLost, message: "lost the PostgreSQL connection: \(Self.errorMessage(handle))")
    }

    private func broken(_ reason: String) -> PostgresError {
        isBroken = true
        return PostgresError(code: .connectionLost, message: reason)
    }

    private func serverError(_ result: OpaquePointer) -> PostgresError {
        if PQstatus(handle) != CONNECTION_OK { return lost() }
        func field(_ code: UInt8) -> String? {
            PQresultErrorField(result, Int32(code)).map { String(cString: $0) }
        }
        let message = field(UInt8(ascii: "M")) ?? String(cString: PQresultErrorMessage(result))
        let sqlState = field(UInt8(ascii: "C"))
        // Class 08 (connection exception) and the server shutting the session down (57P01-57P03): the
        // connection is gone even if libpq has not read the end of it yet.
        if let sqlState, sqlState.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(sqlState) {
            isBroken = true
            return PostgresError(code: .connectionLost, message: message, sqlState: sqlState)
        }
        return PostgresError(code: .server, message: message, sqlState: sqlState)
    }

    private static func errorMessage(_ handle: OpaquePointer) -> String {
        String(cString: PQerrorMessage(handle)).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func changedRows(_ result: OpaquePointer) -> Int {
        PQcmdTuples(result).flatMap { Int(String(cString: $0)) } ?? 0
    }

    /// Calls `body` with libpq's parameter arrays for `parameters`, valid for the duration of the call.
    private static func withParameters(
        _ parameters: [PostgresValue],
        _ body: (Int32, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) -> Int32
    ) -> Int32 {
        var buffers: [UnsafeMutablePointer<CChar>?] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        buffers.reserveCapacity(parameters.count)
        for parameter in parameters {
            guard let (bytes, binary) = parameter.encoded else {
                buffers.append(nil)
                lengths.append(0)
                formats.append(0)
                continue
            }
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            for (offset, byte) in bytes.enumerated() { buffer[offset] = CChar(bitPattern: byte) }
            buffer[bytes.count] = 0
            buffers.append(buffer)
            lengths.append(Int32(bytes.count))
            formats.append(binary ? 1 : 0)
        }
        defer { buffers.forEach { $0?.deallocate() } }
        let values = buffers.map { UnsafePointer($0) }
        return values.withUnsafeBufferPointer { values in
            lengths.withUnsafeBufferPointer { lengths in
                formats.withUnsafeBufferPointer { formats in
                    body(Int32(parameters.count), values.baseAddress, lengths.baseAddress, formats.baseAddress)
                }
            }
        }
    }
}

/// The connection was found dead before a transaction sent anything: trying again elsewhere is safe.
struct StaleConnection: Error {
    var error: PostgresError
}
