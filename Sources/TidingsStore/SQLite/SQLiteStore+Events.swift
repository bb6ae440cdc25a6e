import Foundation
import TidingsModel
import TidingsSQLite

extension SQLiteStore {
    static let eventColumns = """
        seq, event_id, type, occurred_at, received_at, installation_id, platform, sdk_version, app_version, \
        os_version, device_model, user_id, message_id, campaign_id, dialect, source, app_state, action_id, value, \
        token, token_type, environment, permission, attributes, opens_app
        """

    private static let insertEventSQL = """
        INSERT INTO events (app_id, event_id, type, occurred_at, received_at, installation_id, platform, sdk_version,
            app_version, os_version, device_model, user_id, message_id, campaign_id, dialect, source, app_state,
            action_id, value, token, token_type, environment, permission, attributes, opens_app)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22,
            ?23, ?24, ?25)
        ON CONFLICT (app_id, event_id) DO NOTHING
        """

    private static let insertRangeSQL = """
        INSERT INTO event_ranges (app_id, scope, scope_id, first_seq, last_seq) VALUES (?1, ?2, ?3, ?4, ?5)
        """

    public func insertEvents(appID: String, events: [TidingsEvent], receivedAt: Int64) throws -> [Bool] {
        try insertEvents(appID: appID, events: events, receivedAt: receivedAt, signalling: [])
    }

    public func insertEvents(appID: String, events: [TidingsEvent], receivedAt: Int64, signalling: Set<String>)
        throws -> [Bool]
    {
        guard !events.isEmpty else { return [] }
        let (text, scopes) = (EventInsertText(events), EventScope.values(of: events))
        return try database.groupWrite { db in
            try Self.insertEvents(
                db, appID: appID, events: events, text: text, scopes: scopes, receivedAt: receivedAt,
                signalling: signalling)
        }
    }

    public func insertEvents(
        appID: String, events: [TidingsEvent], receivedAt: Int64,
        completion: @escaping @Sendable (Result<[Bool], any Error>) -> Void
    ) {
        insertEvents(appID: appID, events: events, receivedAt: receivedAt, signalling: [], completion: completion)
    }

    public func insertEvents(
        appID: String, events: [TidingsEvent], receivedAt: Int64, signalling: Set<String>,
        completion: @escaping @Sendable (Result<[Bool], any Error>) -> Void
    ) {
        guard !events.isEmpty else { return completion(.success([])) }
        // The caller's thread lays out the batch's text and finds its distinct values, so the single writer
        // only writes.
        let (text, scopes) = (EventInsertText(events), EventScope.values(of: events))
        database.groupWrite(
            { db in
                try Self.insertEvents(
                    db, appID: appID, events: events, text: text, scopes: scopes, receivedAt: receivedAt,
                    signalling: signalling)
            },
            completion: { [eventCompletions] outcome in
                // Building a 500-receipt answer and freeing 500 events were about a tenth of the writer's
                // samples in a profile of event ingest. The hand-off keeps the batch too, so that its last
                // reference is usually dropped there.
                eventCompletions.async { withExtendedLifetime((events, text, scopes)) { completion(outcome) } }
            })
    }

    /// A batch joins the single writer's next group, written by whichever thread leads it.
    public var insertsEventsWithoutWaiting: Bool { true }

    /// Inserts `events` (their text laid out in `text`) and, when any is new, one range per value in `scopes`
    /// spanning the `seq`s they took: consecutive, since this transaction inserts them one after the other.
    private static func insertEvents(
        _ db: SQLiteConnection, appID: String, events: [TidingsEvent], text: EventInsertText,
        scopes: [(scope: EventScope, value: String)], receivedAt: Int64, signalling: Set<String>
    ) throws -> [Bool] {
        let statement = try db.prepare(insertEventSQL)
        var inserted = [Bool]()
        inserted.reserveCapacity(events.count)
        var firstSeq: Int64?
        var lastSeq: Int64 = 0
        // Bindings outlast a run (`step` leaves the statement reset, its bindings kept), so the app and the
        // time of receipt are bound once, and each event binds the rest: every text parameter, NULL or not, so
        // nothing of the previous event stays bound. The texts are borrowed from `text`'s buffer, so the
        // bindings are cleared before it is let go.
        try statement.bind(text: appID, at: 1)
        try statement.bind(.integer(receivedAt), at: 5)
        try text.withBinder { binder in
            defer { statement.reset() }
            for index in events.indices {
                try binder.bind(event: index, to: statement)
                try statement.bind(.integer(events[index].occurredAt), at: 4)
                try statement.bind(events[index].opensApp.map { .integer($0 ? 1 : 0) } ?? .null, at: 25)
                while try statement.step() {}
                let isNew = db.changes > 0
                inserted.append(isNew)
                if isNew {
                    lastSeq = db.lastInsertRowID
                    firstSeq = firstSeq ?? lastSeq
                }
            }
        }
        // A value whose events were all duplicates gets a range with none of its rows: a lookup scans it for
        // nothing, and the ranges of one value still never overlap.
        if let firstSeq {
            let range = try db.prepare(insertRangeSQL)
            try range.bind(text: appID, at: 1)
            try range.bind(.integer(firstSeq), at: 4)
            try range.bind(.integer(lastSeq), at: 5)
            for (scope, value) in scopes {
                try range.bind(text: scope.rawValue, at: 2)
                try range.bind(text: value, at: 3)
                while try range.step() {}
            }
        }
        // Journeys hear of the new events they wait for in this transaction: none is lost between the event's
        // commit and the engine.
        if !signalling.isEmpty {
            for index in events.indices where inserted[index] && signalling.contains(events[index].type.rawValue) {
                try insertJourneySignal(db, JourneySignal(appID: appID, event: events[index]))
            }
        }
        return inserted
    }

    public func events(appID: String, query: EventQuery) throws -> EventPage {
        let (sql, values) = query.pageSQL(dialect: .sqlite, columns: Self.eventColumns) { scope, app, value in
            scope.rows(app: app, value: value)
        }
        let bindings: [SQLiteValue] = [.text(appID)] + values.map(Self.sqliteValue)
        var events = try reader.read { db in try db.query(sql, bindings, row: Self.eventRow) }
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
        return try reader.read { db in
            // One read transaction, so the per-type counts, the stages and the total see the same snapshot.
            try db.transaction(immediate: false) {
                try Self.funnel(db, appID: appID, scope: eventScope, id: id, openingActions: openingActions)
            }
        }
    }

    private static func funnel(
        _ db: SQLiteConnection, appID: String, scope: EventScope, id: String, openingActions: [String: Set<String>]
    ) throws -> EventFunnel {
        var funnel = EventFunnel()
        let rows = try db.query(
            """
            SELECT e.type, COUNT(*), COUNT(DISTINCT e.installation_id) \(scope.rows(app: "?1", value: "?2"))
            GROUP BY e.type
            """, [.text(appID), .text(id)]
        ) { row in (row.text(at: 0), row.int(at: 1), row.int(at: 2)) }
        for (type, events, installations) in rows {
            funnel.eventsByType[type] = events
            funnel.installationsByType[type] = installations
        }
        let columns = FunnelStage.columns(openingActions: openingActions, parameter: { "?\($0)" }, first: 3)
        let width = FunnelStage.allCases.count + 2
        let totals = try db.query(
            "SELECT COUNT(DISTINCT e.installation_id), \(columns.sql) \(scope.rows(app: "?1", value: "?2"))",
            [.text(appID), .text(id)] + columns.values.map { .text($0) }
        ) { row in (0..<Int32(width)).map { row.int(at: $0) } }
        if let totals = totals.first {
            funnel.uniqueInstallations = totals[0]
            funnel.setStages(Array(totals.dropFirst()))
        }
        return funnel
    }

    static func eventRow(_ row: SQLiteStatement) -> StoredEvent {
        let attributes = row.optionalText(at: 23).flatMap { try? JSONText.parse(Data($0.utf8)).objectValue }
        var event = TidingsEvent(
            eventID: UUID(uuidString: row.text(at: 1)) ?? UUID(), type: EventType(row.text(at: 2)),
            occurredAt: row.int64(at: 3), installationID: row.text(at: 5), platform: row.text(at: 6),
            sdkVersion: row.optionalText(at: 7), appVersion: row.optionalText(at: 8),
            osVersion: row.optionalText(at: 9),
            deviceModel: row.optionalText(at: 10), userID: row.optionalText(at: 11),
            messageID: row.optionalText(at: 12), campaignID: row.optionalText(at: 13),
            dialect: row.optionalText(at: 14), source: row.optionalText(at: 15).flatMap(EventSource.init(rawValue:)),
            appState: row.optionalText(at: 16).flatMap(AppState.init(rawValue:)), actionID: row.optionalText(at: 17),
            value: row.optionalText(at: 18), token: row.optionalText(at: 19),
            tokenType: row.optionalText(at: 20).flatMap(TokenType.init(rawValue:)),
            environment: row.optionalText(at: 21), permission: row.optionalText(at: 22), attributes: attributes)
        event.opensApp = row.isNull(at: 24) ? nil : row.int64(at: 24) != 0
        return StoredEvent(sequence: row.int64(at: 0), event: event, receivedAt: row.int64(at: 4))
    }
}
