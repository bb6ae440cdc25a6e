import Foundation

/// A bounded set of connections shared by a store's calls.
///
/// A call takes an idle connection, or opens one while fewer than the maximum are open, or waits for one
/// to come back; it gives up with ``PostgresError/Code/connectionUnavailable`` when none is free by the
/// acquire deadline. Opening or reviving a connection retries with exponential backoff until that deadline,
/// so a server restart costs the calls made during it a wait, not an error. A connection that broke is
/// dropped when it comes back and replaced on demand.
final class PostgresPool: @unchecked Sendable {
    // @unchecked: `idle` and `open` are touched only with `condition` locked; each connection is used by
    // the one caller that took it.
    private let condition = NSCondition()
    private var idle: [PostgresConnection] = []
    private var open = 0
    let settings: PostgresConnection.Settings
    let maximumConnections: Int
    let acquireTimeout: Duration

    init(settings: PostgresConnection.Settings, maximumConnections: Int, acquireTimeout: Duration) {
        self.settings = settings
        self.maximumConnections = max(1, maximumConnections)
        self.acquireTimeout = acquireTimeout
    }

    /// Open connections, busy or idle.
    var openConnections: Int {
        condition.lock()
        defer { condition.unlock() }
        return open
    }

    /// Runs `body` with a connection of its own, returned to the pool afterwards.
    func withConnection<Result>(_ body: (PostgresConnection) throws -> Result) throws -> Result {
        let connection = try acquire()
        defer { release(connection) }
        return try body(connection)
    }

    /// Closes the idle connections (busy ones close when they come back broken or the pool is gone).
    func closeIdle() {
        condition.lock()
        let closing = idle
        idle = []
        open -= closing.count
        condition.broadcast()
        condition.unlock()
        _ = closing
    }

    private func acquire() throws -> PostgresConnection {
        let deadline = ContinuousClock.now + acquireTimeout
        condition.lock()
        while true {
            if let connection = idle.popLast() {
                condition.unlock()
                if connection.isHealthy { return connection }
                do {
                    try withBackoff(until: deadline) { try connection.reset() }
                    return connection
                } catch {
                    dropOne()
                    throw error
                }
            }
            if open < maximumConnections {
                open += 1
                condition.unlock()
                do {
                    return try withBackoff(until: deadline) { try PostgresConnection(settings: settings) }
                } catch {
                    dropOne()
                    throw error
                }
            }
            let remaining = deadline - ContinuousClock.now
            let seconds = Double(remaining.components.seconds) + Double(remaining.components.attoseconds) / 1e18
            if remaining <= .zero || !condition.wait(until: Date(timeIntervalSinceNow: seconds)) {
                if ContinuousClock.now >= deadline {
                    condition.unlock()
                    throw PostgresError(
                        code: .connectionUnavailable,
                        message:
                            "no PostgreSQL connection free within \(acquireTimeout): all \(maximumConnections) are busy"
                    )
                }
            }
        }
    }

    private func release(_ connection: PostgresConnection) {
        condition.lock()
        if connection.isHealthy {
            idle.append(connection)
        } else {
            open -= 1
        }
        condition.signal()
        condition.unlock()
    }

    private func dropOne() {
        condition.lock()
        open -= 1
        condition.signal()
        condition.unlock()
    }

    /// Retries `attempt` with exponential backoff (25 ms doubling to 1 s) until `deadline`, then throws
    /// ``PostgresError/Code/connectionUnavailable`` with the last failure.
    private func withBackoff<Value>(until deadline: ContinuousClock.Instant, _ attempt: () throws -> Value) throws
        -> Value
    {
        var delay = Duration.milliseconds(25)
        while true {
            do {
                return try attempt()
            } catch {
                guard ContinuousClock.now + delay < deadline else {
                    throw PostgresError(
                        code: .connectionUnavailable,
                        message: "cannot reach PostgreSQL within \(acquireTimeout): \(String(describing: error))")
                }
                Thread.sleep(
                    forTimeInterval: Double(delay.components.attoseconds) / 1e18 + Double(delay.components.seconds))
                delay = min(delay * 2, .seconds(1))
            }
        }
    }
}
