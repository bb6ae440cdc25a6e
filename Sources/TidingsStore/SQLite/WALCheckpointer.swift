import Dispatch
import TidingsSQLite

/// Copies the write-ahead log back into the database file on a background queue, on a timer.
///
/// A checkpoint ends in `fdatasync`, which takes milliseconds on ordinary disks. Left to SQLite's
/// automatic checkpoint it runs inside whichever write commits past the threshold, stalling that request
/// and every writer queued behind it. Here a second connection runs passive checkpoints, which never block
/// writers, so requests only append to the log.
final class WALCheckpointer: @unchecked Sendable {
    // @unchecked: `connection` is used only on `queue`, and `timer` is set once in init.
    private let queue = DispatchQueue(label: "tidings.store.checkpoint")
    private let connection: SQLiteConnection
    private var timer: DispatchSourceTimer?

    init(path: String, interval: Duration) throws {
        connection = try SQLiteConnection(path: path)
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let milliseconds = Int(
            interval.components.seconds * 1000 + interval.components.attoseconds / 1_000_000_000_000_000)
        timer.schedule(deadline: .now() + .milliseconds(milliseconds), repeating: .milliseconds(milliseconds))
        timer.setEventHandler { [connection] in
            // A busy or failed checkpoint is retried on the next tick; SQLite's automatic one is the backstop.
            try? connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
        }
        timer.resume()
        self.timer = timer
    }

    deinit {
        timer?.cancel()
    }
}
