import Dispatch
import TidingsModel
import TidingsSQLite

/// Copies the write-ahead log back into the database on a background queue, shortly after writes stop.
///
/// SQLite's automatic checkpoint runs inside whichever commit crosses its threshold and waits for an
/// `fsync` of the database file there, which puts milliseconds into an enqueue that normally takes tens
/// of microseconds. With this type the store raises that threshold to ``safetyNetPages`` and, `delay`
/// after the first commit since the last checkpoint, runs a passive checkpoint from a background queue.
/// It uses the store's own connection, so no commit of this process runs during it: the checkpoint
/// copies the whole log and the next commit starts the log over from its beginning, which keeps it small.
final class WALCheckpointer: Sendable {
    /// The automatic checkpoint threshold left on the writing connection, in pages (about 16 MB): the
    /// safety net when the background queue falls behind.
    static let safetyNetPages = 4_000

    private let database: SQLiteDatabase
    private let delay: DispatchTimeInterval
    private let logger: Logger
    private let queue = DispatchQueue(label: "tidings.events.checkpoint", qos: .utility)
    private let pending = DispatchGroup()
    private let scheduled = LockedBox(false)
    /// Set while the app may be suspended: no checkpoint is scheduled, so none can hold the shared file's
    /// lock when iOS suspends the process (0xdead10cc).
    private let suspended = LockedBox(false)

    init(database: SQLiteDatabase, delay: DispatchTimeInterval, logger: Logger) {
        self.database = database
        self.delay = delay
        self.logger = logger
    }

    /// Notes a commit: schedules one checkpoint `delay` from now unless one is already waiting.
    func didCommit() {
        guard !suspended.withLock({ $0 }) else { return }
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

    /// Whether a deferred checkpoint is waiting to run.
    var hasScheduledCheckpoint: Bool { scheduled.withLock { $0 } }

    /// Stops scheduling checkpoints and waits for the one already scheduled, so no background work of this
    /// type touches the store once the caller's background task ends.
    func suspend() {
        suspended.withLock { $0 = true }
        waitUntilIdle()
    }

    /// Schedules checkpoints again after ``suspend()``.
    func resume() {
        suspended.withLock { $0 = false }
    }

    /// Waits until every checkpoint scheduled so far has run (for tests and orderly shutdowns).
    func waitUntilIdle() {
        pending.wait()
    }

    /// Runs a passive checkpoint (it never waits for the other process) now, on the calling thread.
    func checkpoint() {
        scheduled.withLock { $0 = false }
        do {
            try database.read { db in try db.execute("PRAGMA wal_checkpoint(PASSIVE)") }
        } catch {
            // A failed checkpoint only leaves the log longer; the next one, or SQLite's own, catches up.
            logger.debug("event store checkpoint failed", metadata: ["error": "\(error)"])
        }
    }
}
