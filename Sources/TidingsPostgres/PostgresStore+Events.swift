import Foundation
import TidingsModel
import TidingsStore

extension PostgresStore {
    static let eventColumns = """
        seq, event_id, type, occurred_at, received_at, installation_id, platform, sdk_version, app_version, \
        os_version, device_model, user_id, message_id, campaign_id, dialect, source, app_state, action_id, value, \
        token, token_type, environment, permission, attributes, opens_app
        """
    /// ``eventColumns`` of `e`, for a query that joins `event_ranges` (which has a `received_at` too).
    static let qualifiedEventColumns = qualified(eventColumns, by: "e")

    /// The per-event columns of a batch, after the app (`$1`) and the receipt time (`$2`): one array each.
    private static let eventArrayColumns: [(name: String, type: String)] = [
        ("event_id", "text"), ("type", "text"), ("occurred_at", "bigint"), ("installation_id", "text"),
        ("platform", "text"), ("sdk_version", "text"), ("app_version", "text"), ("os_version", "text"),
        ("device_model", "text"), ("user_id", "text"), ("message_id", "text"), ("campaign_id", "text"),
        ("dialect", "text"), ("source", "text"), ("app_state", "text"), ("action_id", "text"), ("value", "text"),
        ("token", "text"), ("token_type", "text"), ("environment", "text"), ("permission", "text"),
        ("attributes", "text"), ("opens_app", "smallint"),
    ]

    /// A whole batch (up to ``eventSequenceBlock`` events) in one statement, its events bound as one array per
    /// column: the first occurrence of each id goes into `event_ids`, and the events whose id was new there are
    /// inserted in the batch's order, numbered from the one `nextval` the statement takes, with one row of
    /// `event_ranges` per installation, message and campaign among them (EventScope). It answers the positions
    /// (1-based) of the events stored; a duplicate, of an earlier event or of one earlier in the batch, stores
    /// nothing. Partitioned tables cannot have a unique index without the partition key, so `event_ids` is what
    /// keeps de-duplication exact with no time window. One statement instead of one per event spares PostgreSQL
    /// the executor's start-up and the partition routing per event.
    private static let insertEventsSQL: String = {
        let names = eventArrayColumns.map(\.name)
        let arrays = eventArrayColumns.enumerated().map { "$\($0.offset + 3)::\($0.element.type)[]" }
        let copied = names.dropFirst().map { "f.\($0)" }
        let ranges = EventScope.allCases.map { scope in
            """
            SELECT $1, '\(scope.rawValue)', \(scope.column), min(seq), max(seq), $2 FROM stored
                WHERE \(scope.column) IS NOT NULL GROUP BY \(scope.column)
            """
        }
        return """
            WITH block AS (SELECT nextval('events_seq') AS first_seq),
            input AS (
                SELECT * FROM unnest(\(arrays.joined(separator: ", ")))
                    WITH ORDINALITY AS i(\(names.joined(separator: ", ")), ord)),
            first AS (SELECT DISTINCT ON (event_id) * FROM input ORDER BY event_id, ord),
            fresh AS (
                INSERT INTO event_ids (app_id, event_id, received_at) SELECT $1, event_id, $2 FROM first
                ON CONFLICT (app_id, event_id) DO NOTHING RETURNING event_id),
            stored AS (
                INSERT INTO events (seq, app_id, event_id, received_at, \(names.dropFirst().joined(separator: ", ")))
                SELECT block.first_seq + f.ord - 1, $1, f.event_id, $2, \(copied.joined(separator: ", "))
                FROM first f JOIN fresh USING (event_id) CROSS JOIN block ORDER BY f.ord
                RETURNING seq, \(EventScope.allCases.map(\.column).joined(separator: ", "))),
            ranges AS (
                INSERT INTO event_ranges (app_id, scope, scope_id, first_seq, last_seq, received_at)
                \(ranges.joined(separator: "\n    UNION ALL\n")))
            SELECT f.ord FROM first f JOIN fresh USING (event_id)
            """
    }()

    /// Inserts the batch in one transaction, a statement per ``eventSequenceBlock`` events
    /// (``insertEventsSQL``).
    public func insertEvents(appID: String, events: [TidingsEvent], receivedAt: Int64) throws -> [Bool] {
        try insertEvents(appID: appID, events: events, receivedAt: receivedAt, signalling: [])
    }

    public func insertEvents(appID: String, events: [TidingsEvent], receivedAt: Int64, signalling: Set<String>)
        throws -> [Bool]
    {
        guard !events.isEmpty else { return [] }
        try ensureEventPartition(receivedAt: receivedAt)
        let rows = events.map { event -> [PostgresValue] in
            [
                .text(event.eventID.lowercasedString), .text(event.type.rawValue), .integer(event.occurredAt),
                .text(event.installationID), .text(event.platform), PostgresValue(event.sdkVersion),
                PostgresValue(event.appVersion), PostgresValue(event.osVersion), PostgresValue(event.deviceModel),
                PostgresValue(event.userID), PostgresValue(event.messageID), PostgresValue(event.campaignID),
                PostgresValue(event.dialect), PostgresValue(event.source?.rawValue),
                PostgresValue(event.appState?.rawValue), PostgresValue(event.actionID), PostgresValue(event.value),
                PostgresValue(event.token), PostgresValue(event.tokenType?.rawValue), PostgresValue(event.environment),
                PostgresValue(event.permission), PostgresValue(event.attributes.map { JSONText.string(.object($0)) }),
                PostgresValue(event.opensApp.map { Int64($0 ? 1 : 0) }),
            ]
        }
        return try write { db in
            var inserted = [Bool](repeating: false, count: events.count)
            for start in stride(from: 0, to: rows.count, by: Self.eventSequenceBlock) {
                let part = rows[start..<min(start + Self.eventSequenceBlock, rows.count)]
                let parameters =
                    [PostgresValue.text(appID), .integer(receivedAt)]
                    + Self.eventArrayColumns.indices.map { column in .array(part.map { $0[column] }) }
                let stored = try db.query(Self.insertEventsSQL, parameters) { $0.int64(0) }
                for position in stored where position >= 1 && position <= Int64(part.count) {
                    inserted[start + Int(position) - 1] = true
                }
            }
            // Journeys hear of the new events they wait for in this transaction: none is lost between the
            // event's commit and the engine.
            if !signalling.isEmpty {
                for index in events.indices where inserted[index] && signalling.contains(events[index].type.rawValue) {
                    try Self.insertJourneySignal(db, JourneySignal(appID: appID, event: events[index]))
                }
            }
            return inserted
        }
    }

    public func events(appID: String, query: EventQuery) throws -> EventPage {
        let (sql, values) = query.pageSQL(dialect: .postgres, columns: Self.qualifiedEventColumns) {
            scope, app, value in
            scope.postgresRows(app: app, value: value)
        }
        let bindings: [PostgresValue] = [.text(appID)] + values.map(Self.postgresValue)
        var events = try read { db in try db.query(sql, bindings, row: Self.eventRow) }
        let limit = max(0, query.limit)
        var next: Int64?
        if events.count > limit {
            events.removeLast(events.count - limit)
            next = events.last?.sequence
        }
        return EventPage(events: events, nextSequence: next)
    }

    public func funnel(appID: String, scope: FunnelScope, openingActions: [String: Set<String>]) throws -> EventFunnel {
        let (eventScope, id) =
            switch scope {
            case .campaign(let id): (EventScope.campaign, id)
            case .message(let id): (EventScope.message, id)
            }
        let columns = FunnelStage.columns(openingActions: openingActions, parameter: { "$\($0)" }, first: 3)
        let width = Int32(FunnelStage.allCases.count + 1)
        // One statement, so the per-type counts and the total with the stages (the empty grouping set) see the
        // same snapshot.
        let rows = try read { db in
            try db.query(
                """
                SELECT e.type, COUNT(*), COUNT(DISTINCT e.installation_id), \(columns.sql)
                \(eventScope.postgresRows(app: "$1", value: "$2")) GROUP BY GROUPING SETS ((e.type), ())
                """, [.text(appID), .text(id)] + columns.values.map { .text($0) }
            ) { row in (row.optionalText(0), row.int(1), row.int(2), (3..<3 + width).map { row.int($0) }) }
        }
        var funnel = EventFunnel()
        for (type, events, installations, stages) in rows {
            if let type {
                funnel.eventsByType[type] = events
                funnel.installationsByType[type] = installations
            } else {
                funnel.uniqueInstallations = installations
                funnel.setStages(stages)
            }
        }
        return funnel
    }

    static func eventRow(_ row: PostgresRow) -> StoredEvent {
        let attributes = row.optionalText(23).flatMap { try? JSONText.parse(Data($0.utf8)).objectValue }
        var event = TidingsEvent(
            eventID: UUID(uuidString: row.text(1)) ?? UUID(), type: EventType(row.text(2)), occurredAt: row.int64(3),
            installationID: row.text(5), platform: row.text(6), sdkVersion: row.optionalText(7),
            appVersion: row.optionalText(8), osVersion: row.optionalText(9), deviceModel: row.optionalText(10),
            userID: row.optionalText(11), messageID: row.optionalText(12), campaignID: row.optionalText(13),
            dialect: row.optionalText(14), source: row.optionalText(15).flatMap(EventSource.init(rawValue:)),
            appState: row.optionalText(16).flatMap(AppState.init(rawValue:)), actionID: row.optionalText(17),
            value: row.optionalText(18), token: row.optionalText(19),
            tokenType: row.optionalText(20).flatMap(TokenType.init(rawValue:)), environment: row.optionalText(21),
            permission: row.optionalText(22), attributes: attributes)
        event.opensApp = row.optionalInt64(24).map { $0 != 0 }
        return StoredEvent(sequence: row.int64(0), event: event, receivedAt: row.int64(4))
    }
}
