import TidingsModel
import TidingsStore

extension PostgresStore {
    static let journeyColumns =
        "id, app_id, name, state, version, trigger_kind, trigger_key, created_at, updated_at"
    static let journeyRunColumns = """
        id, journey_id, app_id, version, subject, state, step_id, resume_step, due_at, wait_event, on_event_step,
        entered_at, ended_at, end_reason, entry_key, walks, epoch, last_send_step
        """

    static func journeyRow(_ row: PostgresRow) -> JourneyRecord {
        JourneyRecord(
            id: row.text(0), appID: row.text(1), name: row.text(2),
            state: JourneyRecord.State(rawValue: row.text(3)) ?? .archived, version: Int(row.int64(4)),
            triggerKind: row.text(5), triggerKey: row.text(6), createdAt: row.int64(7),
            updatedAt: row.int64(8))
    }

    static func journeyRunRow(_ row: PostgresRow) -> JourneyRunRecord {
        func optional(_ column: Int32) -> Int64? { row.isNull(column) ? nil : row.int64(column) }
        return JourneyRunRecord(
            id: row.text(0), journeyID: row.text(1), appID: row.text(2), version: Int(row.int64(3)),
            subject: row.text(4), state: JourneyRunRecord.State(rawValue: row.text(5)) ?? .exited,
            stepID: row.text(6), resumeStep: row.optionalText(7), dueAt: optional(8),
            waitEvent: row.optionalText(9), onEventStep: row.optionalText(10), enteredAt: row.int64(11),
            endedAt: optional(12), endReason: row.optionalText(13), entryKey: row.text(14),
            walks: Int(row.int64(15)), epoch: row.int64(16), lastSendStep: row.optionalText(17))
    }

    static func journeyRunValues(_ run: JourneyRunRecord) -> [PostgresValue] {
        [
            .text(run.id), .text(run.journeyID), .text(run.appID), .integer(Int64(run.version)), .text(run.subject),
            .text(run.state.rawValue), .text(run.stepID), PostgresValue(run.resumeStep), PostgresValue(run.dueAt),
            PostgresValue(run.waitEvent), PostgresValue(run.onEventStep), .integer(run.enteredAt),
            PostgresValue(run.endedAt), PostgresValue(run.endReason), .text(run.entryKey), .integer(Int64(run.walks)),
            .integer(run.epoch), PostgresValue(run.lastSendStep),
        ]
    }

    static func addJourneyCounts(_ db: PostgresConnection, journeyID: String, _ counts: [JourneyCount]) throws {
        for count in counts where count.count != 0 {
            try db.run(
                """
                INSERT INTO journey_counts (journey_id, step_id, metric, count) VALUES ($1, $2, $3, $4)
                ON CONFLICT (journey_id, step_id, metric) DO UPDATE SET count = journey_counts.count + excluded.count
                """, [.text(journeyID), .text(count.stepID), .text(count.metric), .integer(Int64(count.count))])
        }
    }

    static func insertJourneySignal(_ db: PostgresConnection, _ signal: JourneySignal) throws {
        let statement = journeySignalInsert(signal)
        try db.run(statement.sql, statement.parameters)
    }

    /// The insert of `signal`, for a pipeline of statements (a group of upserts) as well as alone.
    static func journeySignalInsert(_ signal: JourneySignal) -> PostgresConnection.Statement {
        PostgresConnection.Statement(
            sql: """
                INSERT INTO journey_signals (app_id, kind, name, installation_id, user_id, value, attributes, occurred_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                """,
            parameters: [
                .text(signal.appID), .text(signal.kind.rawValue), .text(signal.name), .text(signal.installationID),
                PostgresValue(signal.userID), PostgresValue(signal.value), PostgresValue(signal.attributes),
                .integer(signal.occurredAt),
            ])
    }

    public func createJourney(_ journey: JourneyRecord, definition: String) throws {
        try write { db in
            if try db.scalar("SELECT 1 FROM journeys WHERE id = $1", [.text(journey.id)]) != nil {
                throw StoreError(code: .conflict, message: "a journey with id \(journey.id) already exists")
            }
            try db.run(
                "INSERT INTO journeys (\(Self.journeyColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                [
                    .text(journey.id), .text(journey.appID), .text(journey.name), .text(journey.state.rawValue),
                    .integer(Int64(journey.version)), .text(journey.triggerKind), .text(journey.triggerKey),
                    .integer(journey.createdAt), .integer(journey.updatedAt),
                ])
            try db.run(
                "INSERT INTO journey_versions (journey_id, version, definition, created_at) VALUES ($1, $2, $3, $4)",
                [.text(journey.id), .integer(Int64(journey.version)), .text(definition), .integer(journey.createdAt)])
        }
    }

    public func journey(appID: String, id: String) throws -> JourneyRecord? {
        try read { db in
            try db.query(
                "SELECT \(Self.journeyColumns) FROM journeys WHERE app_id = $1 AND id = $2", [.text(appID), .text(id)],
                row: Self.journeyRow
            ).first
        }
    }

    public func journeys(appID: String?) throws -> [JourneyRecord] {
        try read { db in
            try db.query(
                """
                SELECT \(Self.journeyColumns) FROM journeys WHERE $1::text IS NULL OR app_id = $1
                ORDER BY created_at DESC, id DESC
                """, [PostgresValue(appID)], row: Self.journeyRow)
        }
    }

    public func journeyVersion(journeyID: String, version: Int) throws -> JourneyVersionRecord? {
        try read { db in
            try db.query(
                """
                SELECT journey_id, version, definition, created_at FROM journey_versions
                WHERE journey_id = $1 AND version = $2
                """, [.text(journeyID), .integer(Int64(version))]
            ) {
                JourneyVersionRecord(
                    journeyID: $0.text(0), version: Int($0.int64(1)), definition: $0.text(2),
                    createdAt: $0.int64(3))
            }.first
        }
    }

    public func journeyVersions(journeyID: String) throws -> [JourneyVersionRecord] {
        try read { db in
            try db.query(
                """
                SELECT journey_id, version, definition, created_at FROM journey_versions
                WHERE journey_id = $1 ORDER BY version
                """, [.text(journeyID)]
            ) {
                JourneyVersionRecord(
                    journeyID: $0.text(0), version: Int($0.int64(1)), definition: $0.text(2),
                    createdAt: $0.int64(3))
            }
        }
    }

    public func addJourneyVersion(
        appID: String, journeyID: String, name: String, definition: String, triggerKind: String, triggerKey: String,
        now: Int64
    ) throws -> JourneyRecord? {
        try write { db in
            guard
                var journey = try db.query(
                    "SELECT \(Self.journeyColumns) FROM journeys WHERE app_id = $1 AND id = $2",
                    [.text(appID), .text(journeyID)], row: Self.journeyRow
                ).first
            else { return nil }
            journey.version += 1
            journey.name = name
            journey.triggerKind = triggerKind
            journey.triggerKey = triggerKey
            journey.updatedAt = now
            try db.run(
                """
                UPDATE journeys SET version = $2, name = $3, trigger_kind = $4, trigger_key = $5, updated_at = $6
                WHERE id = $1
                """,
                [
                    .text(journeyID), .integer(Int64(journey.version)), .text(name), .text(triggerKind),
                    .text(triggerKey), .integer(now),
                ])
            try db.run(
                "INSERT INTO journey_versions (journey_id, version, definition, created_at) VALUES ($1, $2, $3, $4)",
                [.text(journeyID), .integer(Int64(journey.version)), .text(definition), .integer(now)])
            return journey
        }
    }

    public func setJourneyState(
        appID: String, journeyID: String, to state: JourneyRecord.State, from: Set<JourneyRecord.State>, now: Int64
    ) throws -> JourneyRecord? {
        try write { db in
            guard
                var journey = try db.query(
                    "SELECT \(Self.journeyColumns) FROM journeys WHERE app_id = $1 AND id = $2",
                    [.text(appID), .text(journeyID)], row: Self.journeyRow
                ).first
            else { return nil }
            guard from.contains(journey.state) else {
                throw StoreError(
                    code: .conflict,
                    message: "journey \(journeyID) is \(journey.state.rawValue); it cannot become \(state.rawValue)")
            }
            journey.state = state
            journey.updatedAt = now
            try db.run(
                "UPDATE journeys SET state = $2, updated_at = $3 WHERE id = $1",
                [.text(journeyID), .text(state.rawValue), .integer(now)])
            return journey
        }
    }

    public func enterJourneys(_ entries: [(run: JourneyRunRecord, minimumGap: Int64?)]) throws -> [JourneyEntryOutcome]
    {
        try write { db in try entries.map { try Self.enterJourney(db, $0.run, minimumGap: $0.minimumGap) } }
    }

    static func enterJourney(_ db: PostgresConnection, _ run: JourneyRunRecord, minimumGap: Int64?) throws
        -> JourneyEntryOutcome
    {
        let outcome = try Self.entryOutcome(db, run, minimumGap: minimumGap)
        switch outcome {
        case .entered:
            let placeholders = (1...18).map { "$\($0)" }.joined(separator: ", ")
            try db.run(
                "INSERT INTO journey_runs (\(Self.journeyRunColumns)) VALUES (\(placeholders))",
                Self.journeyRunValues(run))
            try db.run(
                """
                INSERT INTO journey_entries (journey_id, subject, last_entered_at, times) VALUES ($1, $2, $3, 1)
                ON CONFLICT (journey_id, subject) DO UPDATE SET last_entered_at = excluded.last_entered_at,
                    times = journey_entries.times + 1
                """, [.text(run.journeyID), .text(run.subject), .integer(run.enteredAt)])
            try Self.addJourneyCounts(
                db, journeyID: run.journeyID, [JourneyCount(stepID: "", metric: "entered", count: 1)])
        case .alreadyIn, .entryRule:
            try Self.addJourneyCounts(
                db, journeyID: run.journeyID, [JourneyCount(stepID: "", metric: outcome.rawValue, count: 1)])
        case .repeated, .inactive: break
        }
        return outcome
    }

    private static func entryOutcome(_ db: PostgresConnection, _ run: JourneyRunRecord, minimumGap: Int64?) throws
        -> JourneyEntryOutcome
    {
        guard
            try db.scalar("SELECT 1 FROM journeys WHERE id = $1 AND state = 'active'", [.text(run.journeyID)]) != nil
        else { return .inactive }
        if try db.scalar(
            "SELECT 1 FROM journey_runs WHERE journey_id = $1 AND entry_key = $2",
            [.text(run.journeyID), .text(run.entryKey)])
            != nil
        {
            return .repeated
        }
        if try db.scalar(
            "SELECT 1 FROM journey_runs WHERE journey_id = $1 AND subject = $2 AND state IN ('ready', 'waiting')",
            [.text(run.journeyID), .text(run.subject)]) != nil
        {
            return .alreadyIn
        }
        if let minimumGap,
            let last = try db.scalar(
                "SELECT last_entered_at FROM journey_entries WHERE journey_id = $1 AND subject = $2",
                [.text(run.journeyID), .text(run.subject)]),
            minimumGap == .max || run.enteredAt - last < minimumGap
        {
            return .entryRule
        }
        return .entered
    }

    public func claimJourneyRuns(owner: String, now: Int64, leaseUntil: Int64, limit: Int) throws -> [JourneyRunRecord]
    {
        try write { db in
            let runs = try db.query(
                """
                SELECT \(Self.qualified(Self.journeyRunColumns, by: "r"))
                FROM journey_runs r JOIN journeys j ON j.id = r.journey_id
                WHERE r.state IN ('ready', 'waiting') AND r.due_at <= $1 AND j.state IN ('active', 'archived')
                    AND (r.owner IS NULL OR r.lease_until <= $1)
                ORDER BY r.due_at LIMIT $2
                FOR UPDATE OF r SKIP LOCKED
                """, [.integer(now), .integer(Int64(max(0, limit)))], row: Self.journeyRunRow)
            return try runs.map { run in
                var claimed = run
                claimed.epoch += 1
                try db.run(
                    "UPDATE journey_runs SET owner = $2, lease_until = $3, epoch = $4 WHERE id = $1",
                    [.text(run.id), .text(owner), .integer(leaseUntil), .integer(claimed.epoch)])
                return claimed
            }
        }
    }

    public func commitJourneyRuns(_ changes: [JourneyRunChange], owner: String?, leaseUntil: Int64?) throws -> [Bool] {
        try write { db in try changes.map { try Self.commitJourneyRun(db, $0, owner: owner, leaseUntil: leaseUntil) } }
    }

    static func commitJourneyRun(
        _ db: PostgresConnection, _ change: JourneyRunChange, owner: String?, leaseUntil: Int64?
    ) throws -> Bool {
        let run = change.run
        let changed = try db.run(
            """
            UPDATE journey_runs SET state = $3, step_id = $4, resume_step = $5, due_at = $6, wait_event = $7,
                on_event_step = $8, ended_at = $9, end_reason = $10, walks = $11, last_send_step = $12, epoch = $2 + 1, owner = NULL,
                lease_until = NULL
            WHERE id = $1 AND epoch = $2 AND state IN ('ready', 'waiting')
            """,
            [
                .text(run.id), .integer(change.expectedEpoch), .text(run.state.rawValue), .text(run.stepID),
                PostgresValue(run.resumeStep), PostgresValue(run.dueAt), PostgresValue(run.waitEvent),
                PostgresValue(run.onEventStep), PostgresValue(run.endedAt), PostgresValue(run.endReason),
                .integer(Int64(run.walks)), PostgresValue(run.lastSendStep),
            ])
        guard changed > 0 else { return false }
        for message in change.messages
        where try db.scalar("SELECT 1 FROM messages WHERE id = $1", [.text(message.id)]) == nil {
            if let deliveries = change.deliveries[message.id] {
                var resolved = message
                resolved.state = .sending
                try Self.insertCampaign(db, resolved, resolver: nil, leaseUntil: nil)
                if let appID = deliveries.first?.appID {
                    try Self.insertDeliveries(db, deliveries, message: message.id, app: appID, now: message.createdAt)
                }
            } else {
                try Self.insertCampaign(db, message, resolver: owner, leaseUntil: leaseUntil)
            }
        }
        try Self.addJourneyCounts(db, journeyID: run.journeyID, change.counts)
        try Self.insertJourneyStepTestSends(db, run: run, change.testSends)
        return true
    }

    public func activeJourneyRuns(appID: String, subjects: [String]) throws -> [JourneyRunRecord] {
        guard !subjects.isEmpty else { return [] }
        return try read { db in
            try subjects.flatMap { subject in
                try db.query(
                    """
                    SELECT \(Self.journeyRunColumns) FROM journey_runs
                    WHERE app_id = $1 AND subject = $2 AND state IN ('ready', 'waiting')
                    """, [.text(appID), .text(subject)], row: Self.journeyRunRow)
            }
        }
    }

    public func journeySubjectEvents(
        appID: String, userID: String?, installationID: String?, type: String, since: Int64, limit: Int
    ) throws -> [JourneySignal] {
        let column = userID == nil ? "installation_id" : "user_id"
        guard let subject = userID ?? installationID else { return [] }
        return try read { db in
            try db.query(
                """
                SELECT installation_id, user_id, value, attributes, occurred_at FROM events
                WHERE app_id = $1 AND \(column) = $2 AND type = $3 AND occurred_at >= $4
                ORDER BY occurred_at LIMIT $5
                """, [.text(appID), .text(subject), .text(type), .integer(since), .integer(Int64(max(0, limit)))]
            ) {
                JourneySignal(
                    appID: appID, kind: .event, name: type, installationID: $0.text(0), userID: $0.optionalText(1),
                    value: $0.optionalText(2), attributes: $0.optionalText(3), occurredAt: $0.int64(4))
            }
        }
    }

    public func journeyCounts(journeyID: String) throws -> [JourneyCount] {
        try read { db in
            try db.query(
                "SELECT step_id, metric, count FROM journey_counts WHERE journey_id = $1 ORDER BY step_id, metric",
                [.text(journeyID)]
            ) { JourneyCount(stepID: $0.text(0), metric: $0.text(1), count: Int($0.int64(2))) }
        }
    }

    public func journeyRunsInProgress(journeyID: String) throws -> [String: Int] {
        try read { db in
            let rows = try db.query(
                """
                SELECT step_id, count(*) FROM journey_runs WHERE journey_id = $1 AND state IN ('ready', 'waiting')
                GROUP BY step_id
                """, [.text(journeyID)]
            ) { ($0.text(0), Int($0.int64(1))) }
            return Dictionary(rows, uniquingKeysWith: +)
        }
    }

    public func journeySignals(limit: Int) throws -> [JourneySignal] {
        try read { db in
            try db.query(
                """
                SELECT id, app_id, kind, name, installation_id, user_id, value, attributes, occurred_at
                FROM journey_signals ORDER BY id LIMIT $1
                """, [.integer(Int64(max(0, limit)))]
            ) {
                JourneySignal(
                    id: $0.int64(0), appID: $0.text(1), kind: JourneySignal.Kind(rawValue: $0.text(2)) ?? .event,
                    name: $0.text(3), installationID: $0.text(4), userID: $0.optionalText(5),
                    value: $0.optionalText(6), attributes: $0.optionalText(7), occurredAt: $0.int64(8))
            }
        }
    }

    public func removeJourneySignals(ids: [Int64]) throws {
        guard !ids.isEmpty else { return }
        try write { db in
            for id in ids { try db.run("DELETE FROM journey_signals WHERE id = $1", [.integer(id)]) }
        }
    }
}
