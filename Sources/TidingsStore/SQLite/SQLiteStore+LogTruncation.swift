import Foundation
import TidingsSQLite

extension SQLiteStore {
    /// Copies the write-ahead log back into the database file and empties it, after a write that zeroed values
    /// which must not stay on disk (secure_delete zeroes their cells in the pages; the log still holds the
    /// pages' earlier images). A checkpoint already running, such as the background checkpointer's passive one,
    /// makes SQLite answer busy and leave the log as it is, so this tries again, for up to a second. A reader
    /// holding the log longer than that leaves it to the next truncation or to the log's reuse from its start;
    /// the write itself has committed, so this does not fail it.
    func truncateLog() throws {
        for _ in 0..<100 {
            let busy = try database.read { db in
                try db.query("PRAGMA wal_checkpoint(TRUNCATE)", []) { $0.int64(at: 0) }.first ?? 0
            }
            if busy == 0 { return }
            Thread.sleep(forTimeInterval: 0.01)
        }
    }
}
