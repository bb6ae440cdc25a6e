import Dispatch
import TidingsModel
import TidingsSQLite

/// Copies the write-ahead log back into the database on a background queue, off the enqueue path.
///
/// SQLite's automatic checkpoint runs inside whichever commit crosses its threshold and waits for an
/// `fsync` of the database file there, which puts milliseconds into an enqueue that normally takes tens
/// of microseconds. With this type the store raises that threshold to ``safetyNetPages`` (so a sustained
/// stream of writes still keeps the log bounded) and, shortly after the writes of a moment stop, runs a
/// passive checkpoint on its own connection. A checkpoint that finds the log quiet copies all of it, and
/// the next commit then reuses the log from its start.
final class WALCheckpointer: Sendable {
    /// The automatic checkpoint threshold left on the writing connection, in pages (about 16 MB).
    static let safetyNetPages = 4_000

    private let path: String
    private let options: SQLiteConnection.Options
    private let delay: DispatchTimeInterval
    private let logger: Logger
    private let queue = DispatchQueue(label: "tidings.events.checkpoint", qos: .utility)
    private let pending = DispatchGroup()
    private let scheduled = LockedBox(false)
    /// Used only on `queue`, apart from `scheduled`, so that noting a commit never waits for a checkpoint.
    private let connection = LockedBox<SQLiteConnection?>(nil)

    init(path: String, options: SQLiteConnection.Options, delay: DispatchTimeInterval, logger: Logger) {
        self.path = path
        self.options = options
        self.delay = delay
        self.logger = logger
    }

    /// Notes a commit: schedules one checkpoint `delay` from now unless one is already waiting.
    func didCommit() {
        let schedule = scheduled.withLock { scheduled -> Bool in
            if scheduled { return false }
            scheduled = true
            return true
        }
        guard schedule else { return }
        pending.enter()
        queue.asyncAfter(deadline: .now() + delay) {
            self.checkpoint()
            self.pending.leave()
        }
    }

    /// Waits until every checkpoint scheduled so far has run (for tests and orderly shutdowns).
    func waitUntilIdle() {
        pending.wait()
    }

    /// Runs a passive checkpoint (it never blocks writers) now, on the calling thread.
    func checkpoint() {
        scheduled.withLock { $0 = false }
        connection.withLock { connection in
            do {
                if connection == nil {
                    connection = try SQLiteConnection(path: path, options: options)
                }
                try connection?.execute("PRAGMA wal_checkpoint(PASSIVE)")
            } catch {
                // A failed checkpoint only leaves the log longer; the next one, or SQLite's own, catches up.
                logger.debug("event store checkpoint failed", metadata: ["error": "\(error)"])
            }
        }
    }
}
