import Foundation
import Testing
import TidingsModel
import TidingsStore
import TidingsStoreTesting

@testable import TidingsPostgres

/// Erasure on PostgreSQL, searched for in every column of every table (information_schema, each value cast
/// to text; bytea decoded).
@Suite struct PostgresErasureTests {
    typealias Fixture = ErasureFixture

    @Test func theErasedPersonIsInNoColumnOfAnyTable() throws {
        let store = try PostgresStore(configuration: try StoreBackend.postgresConfiguration())
        try Fixture.populate(store)
        #expect(!(try Self.occurrences(store)).isEmpty, "the search finds the person before the erasure")

        _ = try store.eraseUser(Fixture.erasure)
        let left = try Self.occurrences(store)
        #expect(
            left.sorted() == ["\(Fixture.userID) in erasure_notices.user_id"],
            "only the forwarders' notices hold the id")

        for forwarder in ["fwd_hook", "fwd_file"] {
            let ids = try store.erasureNotices(forwarderID: forwarder, limit: 10).map(\.id)
            try store.removeErasureNotices(forwarderID: forwarder, ids: ids)
        }
        #expect(try Self.occurrences(store) == [])
    }

    /// `needle in table.column` for each personal value of the fixture found in a column. Partitions of
    /// `events` are read through `events` itself.
    static func occurrences(_ store: PostgresStore) throws -> [String] {
        try store.read { db in
            let columns = try db.query(
                """
                SELECT c.table_name, c.column_name, c.data_type FROM information_schema.columns c
                JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
                WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
                    AND NOT EXISTS (
                        SELECT 1 FROM pg_inherits i JOIN pg_class k ON k.oid = i.inhrelid WHERE k.relname = c.table_name)
                ORDER BY 1, 2
                """
            ) { ($0.text(0), $0.text(1), $0.text(2)) }
            var found: [String] = []
            for (table, column, type) in columns {
                let text = type == "bytea" ? "encode(\"\(column)\", 'escape')" : "CAST(\"\(column)\" AS text)"
                for needle in Fixture.personal {
                    let count =
                        try db.scalar(
                            "SELECT count(*) FROM \"\(table)\" WHERE strpos(\(text), $1::text) > 0", [.text(needle)])
                        ?? 0
                    if count > 0 { found.append("\(needle) in \(table).\(column)") }
                }
            }
            return found
        }
    }
}
