import Dispatch
import TidingsModel
import TidingsSQLite

/// Copies the write-ahead log back into the database on a background queue, off the enqueue path.
///
/// SQLite's automatic checkpoint runs inside whichever commit crosses the threshold and waits for an
/// `fsync` of the database file there, which is what puts milliseconds into an enqueue that normally
/// takes tens of microseconds. The store turns it off on its writing connection, and this type runs a
/// passive checkpoint (which never blocks writers) on its own connection instead: once early in each
/// process, so that short-lived extension processes cannot grow the log without bound, and then every
/// `interval` commits.
final class WALCheckpointer: Sendable {
    private let path: String
    private let options: SQLiteConnection.Options
    private let interval: Int
    private let logger: Logger
    private let queue = DispatchQueue(label: "tidings.events.checkpoint", qos: .utility)
    private let state = LockedBox(State())
    /// Used only on `queue`, apart from `state`, so that counting a commit never waits for a checkpoint.
    private let connection = LockedBox<SQLiteConnection?>(nil)

    private struct State {
        // Starts due, so every process checkpoints soon after its first commit.
        var commitsSinceCheckpoint = Int.max / 2
        var scheduled = false
    }

    init(path: String, options: SQLiteConnection.Options, interval: Int, logger: Logger) {
        self.path = path
        self.options = options
        self.interval = interval
        self.logger = logger
    }

    /// Counts a commit, and schedules a checkpoint when enough have piled up since the last one.
    func didCommit() {
        let schedule = state.withLock { state -> Bool in
            state.commitsSinceCheckpoint += 1
            guard state.commitsSinceCheckpoint >= interval, !state.scheduled else { return false }
            state.scheduled = true
            state.commitsSinceCheckpoint = 0
            return true
        }
        guard schedule else { return }
        queue.async { self.checkpoint() }
    }

    /// Runs a passive checkpoint now, on the calling thread.
    func checkpoint() {
        state.withLock { $0.scheduled = false }
        connection.withLock { connection in
            do {
                if connection == nil {
                    connection = try SQLiteConnection(path: path, options: options)
                }
                try connection?.execute("PRAGMA wal_checkpoint(PASSIVE)")
            } catch {
                // A failed checkpoint only leaves the log longer; the next one catches up.
                logger.debug("event store checkpoint failed", metadata: ["error": "\(error)"])
            }
        }
    }
}
