import Foundation
import Testing

@testable import TidingsSQLite

/// Text bound in place (its UTF-8 with a length), and the bindings a finished run leaves behind.
@Suite struct SQLiteStatementTests {
    @Test func textIsBoundByteForByteIncludingEmptyNonASCIIAndBridgedStrings() throws {
        let database = try SQLiteDatabase(path: ":memory:")
        let texts = [
            "", "ascii", "日本語のテキスト", "emoji 🎉 and é", "nul\u{0}inside", String(repeating: "x", count: 10_000),
            NSString(string: "bridged from Foundation") as String,
        ]
        try database.write { db in
            try db.execute("CREATE TABLE texts (position INTEGER PRIMARY KEY, value TEXT)")
            for (position, text) in texts.enumerated() {
                try db.run("INSERT INTO texts VALUES (?1, ?2)", [.integer(Int64(position)), .text(text)])
            }
        }
        let stored = try database.read { db in
            try db.query("SELECT value, value IS NULL, length(CAST(value AS BLOB)) FROM texts ORDER BY position") {
                ($0.text(at: 0), $0.int(at: 1) == 1, $0.int(at: 2))
            }
        }
        #expect(stored.map(\.0) == texts)
        // An empty string is empty text, never NULL.
        #expect(stored.map(\.1) == Array(repeating: false, count: texts.count))
        #expect(stored.map(\.2) == texts.map(\.utf8.count))
    }

    @Test func aStatementPreparedAgainStartsWithNoBindingsFromItsLastRun() throws {
        let database = try SQLiteDatabase(path: ":memory:")
        let sql = "SELECT ?1, ?2"
        let first = try database.read { db in
            try db.query(sql, [.text("left"), .integer(7)]) { [$0.value(at: 0), $0.value(at: 1)] }
        }
        #expect(first == [[.text("left"), .integer(7)]])
        // Only the first parameter this time: the second must be NULL, not the 7 of the run before.
        let second = try database.read { db in
            try db.query(sql, [.text("again")]) { [$0.value(at: 0), $0.value(at: 1)] }
        }
        #expect(second == [[.text("again"), .null]])
    }
}
