import Foundation
import Testing
import TidingsSQLite

@Suite struct SQLiteDatabaseTests {
    @Test func writeRollsBackWhenTheBodyThrows() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("\(UUID()).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let database = try SQLiteDatabase(path: path)
        try database.write { db in try db.execute("CREATE TABLE t(x INTEGER UNIQUE)") }
        try database.write { db in try db.run("INSERT INTO t(x) VALUES (?)", [.integer(1)]) }
        #expect(throws: SQLiteError.self) {
            try database.write { db in
                try db.run("INSERT INTO t(x) VALUES (?)", [.integer(2)])
                try db.run("INSERT INTO t(x) VALUES (?)", [.integer(1)])
            }
        }
        let count = try database.read { db in try db.scalar("SELECT count(*) FROM t") }
        #expect(count == .integer(1))
    }
}
