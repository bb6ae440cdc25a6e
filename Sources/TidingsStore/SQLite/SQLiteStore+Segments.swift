import TidingsSQLite

extension SQLiteStore {
    public func segments(appID: String) throws -> [Segment] {
        try reader.read { db in
            try db.query(
                "SELECT \(Self.segmentColumns) FROM segments WHERE app_id = ?1 ORDER BY name", [.text(appID)],
                row: Self.segmentRow)
        }
    }

    public func segment(appID: String, segmentID: String) throws -> Segment? {
        try reader.read { db in
            try db.query(
                "SELECT \(Self.segmentColumns) FROM segments WHERE app_id = ?1 AND segment_id = ?2",
                [.text(appID), .text(segmentID)], row: Self.segmentRow
            ).first
        }
    }

    public func saveSegment(appID: String, _ segment: Segment) throws {
        try database.write { db in
            guard
                try db.scalar(
                    "SELECT 1 FROM segments WHERE app_id = ?1 AND name = ?2 AND segment_id <> ?3",
                    [.text(appID), .text(segment.name), .text(segment.id)]) == nil
            else {
                throw StoreError(code: .conflict, message: "there is already a segment named '\(segment.name)'")
            }
            try db.run(
                """
                INSERT INTO segments (app_id, segment_id, name, expression, created_at, updated_at)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                ON CONFLICT (app_id, segment_id) DO UPDATE SET name = excluded.name,
                    expression = excluded.expression, updated_at = excluded.updated_at
                """,
                [
                    .text(appID), .text(segment.id), .text(segment.name), .text(segment.expression),
                    .integer(segment.createdAt), .integer(segment.updatedAt),
                ])
        }
    }

    public func deleteSegment(appID: String, segmentID: String) throws -> Bool {
        try database.write { db in
            try db.run("DELETE FROM segments WHERE app_id = ?1 AND segment_id = ?2", [.text(appID), .text(segmentID)])
                > 0
        }
    }

    private static let segmentColumns = "segment_id, name, expression, created_at, updated_at"

    private static func segmentRow(_ row: SQLiteStatement) -> Segment {
        Segment(
            id: row.text(at: 0), name: row.text(at: 1), expression: row.text(at: 2), createdAt: row.int64(at: 3),
            updatedAt: row.int64(at: 4))
    }
}
