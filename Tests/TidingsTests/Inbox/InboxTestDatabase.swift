import Foundation
import Tidings
import TidingsSQLite

/// A temporary database file per test, removed with its WAL files.
final class InboxTestDatabase {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("inbox-\(UUID()).sqlite").path

    func open() throws -> SQLiteDatabase { try SQLiteDatabase(path: path) }

    deinit {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}
