import TidingsSQLite

extension SQLiteStore {
    public func journeySegmentMembers(journeyID: String, segment: String) throws -> Set<String>? {
        try reader.read { db in
            guard try Self.hasSegmentBaseline(db, journeyID: journeyID, segment: segment) else { return nil }
            return Set(
                try db.query(
                    """
                    SELECT subject FROM journey_segment_members
                    WHERE journey_id = ?1 AND segment = ?2 AND member = 1
                    """, [.text(journeyID), .text(segment)]
                ) { $0.text(at: 0) })
        }
    }

    public func recordJourneySegmentMembership(
        journeyID: String, segment: String, joined: [JourneySegmentJoin], left: [String], takingBaseline: Bool,
        now: Int64
    ) throws -> [JourneyEntryOutcome?] {
        try database.write { db in
            guard try takingBaseline || Self.hasSegmentBaseline(db, journeyID: journeyID, segment: segment)
            else { return joined.map { _ in nil } }
            for subject in left {
                try db.run(
                    """
                    UPDATE journey_segment_members SET member = 0, changed_at = ?4
                    WHERE journey_id = ?1 AND segment = ?2 AND subject = ?3 AND member = 1
                    """, [.text(journeyID), .text(segment), .text(subject), .integer(now)])
            }
            // Every membership row first, then the entries: an entry locks the journey's counts, and a row taken
            // after them could wait on a transaction that waits for the counts.
            var joinNumbers: [Int64?] = []
            for join in joined {
                joinNumbers.append(
                    try db.query(
                        """
                        INSERT INTO journey_segment_members (journey_id, segment, subject, member, joins, changed_at)
                        VALUES (?1, ?2, ?3, 1, 1, ?4)
                        ON CONFLICT (journey_id, segment, subject) DO UPDATE SET member = 1,
                            joins = journey_segment_members.joins + 1, changed_at = excluded.changed_at
                        WHERE journey_segment_members.member = 0
                        RETURNING joins
                        """, [.text(journeyID), .text(segment), .text(join.run.subject), .integer(now)]
                    ) { $0.int64(at: 0) }.first)
            }
            var outcomes: [JourneyEntryOutcome?] = []
            for (join, joins) in zip(joined, joinNumbers) {
                guard let joins, join.enters else {
                    outcomes.append(nil)
                    continue
                }
                var run = join.run
                run.entryKey = "segment:\(run.subject):\(joins)"
                outcomes.append(try Self.enterJourney(db, run, minimumGap: join.minimumGap))
            }
            return outcomes
        }
    }

    public func completeJourneySegmentBaseline(journeyID: String, segment: String, now: Int64) throws {
        try database.write { db in
            _ = try db.run(
                """
                INSERT INTO journey_segment_members (journey_id, segment, subject, member, joins, changed_at)
                VALUES (?1, ?2, '', 0, 0, ?3) ON CONFLICT (journey_id, segment, subject) DO NOTHING
                """, [.text(journeyID), .text(segment), .integer(now)])
        }
    }

    /// The baseline is a row with an empty subject, which no person has.
    private static func hasSegmentBaseline(_ db: SQLiteConnection, journeyID: String, segment: String) throws -> Bool {
        try db.scalar(
            "SELECT 1 FROM journey_segment_members WHERE journey_id = ?1 AND segment = ?2 AND subject = ''",
            [.text(journeyID), .text(segment)]) != nil
    }
}
