import Foundation
import TidingsModel
import TidingsSQLite

extension SQLiteStore {
    static let eventColumns = """
        seq, event_id, type, occurred_at, received_at, installation_id, platform, sdk_version, app_version, \
        os_version, device_model, user_id, message_id, campaign_id, dialect, source, app_state, action_id, value, \
        token, token_type, environment, permission, attributes
        """

    private static let insertEventSQL = """
        INSERT INTO events (app_id, event_id, type, occurred_at, received_at, installation_id, platform, sdk_version,
            app_version, os_version, device_model, user_id, message_id, campaign_id, dialect, source, app_state,
            action_id, value, token, token_type, environment, permission, attributes)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22,
            ?23, ?24)
        ON CONFLICT (app_id, event_id) DO NOTHING
        """

    public func insertEvents(appID: String, events: [TidingsEvent], receivedAt: Int64) throws -> [Bool] {
        guard !events.isEmpty else { return [] }
        return try database.groupWrite { db in
            try Self.insertEvents(db, appID: appID, events: events, receivedAt: receivedAt)
        }
    }

    public func insertEvents(
        appID: String, events: [TidingsEvent], receivedAt: Int64,
        completion: @escaping @Sendable (Result<[Bool], any Error>) -> Void
    ) {
        guard !events.isEmpty else { return completion(.success([])) }
        database.groupWrite(
            { db in try Self.insertEvents(db, appID: appID, events: events, receivedAt: receivedAt) },
            completion: completion)
    }

    /// A batch joins the single writer's next group, written by whichever thread leads it.
    public var insertsEventsWithoutWaiting: Bool { true }

    private static func insertEvents(
        _ db: SQLiteConnection, appID: String, events: [TidingsEvent], receivedAt: Int64
    ) throws -> [Bool] {
        let statement = try db.prepare(insertEventSQL)
        var inserted = [Bool]()
        inserted.reserveCapacity(events.count)
        // `prepare` hands the statement over reset, and each run leaves it reset (`step`), so the loop
        // only binds: all 24 parameters every time, so nothing of the previous event stays bound.
        for event in events {
            func text(_ value: String?, _ index: Int32) throws {
                try statement.bind(value.map(SQLiteValue.text) ?? .null, at: index)
            }
            try statement.bind(.text(appID), at: 1)
            try statement.bind(.text(event.eventID.lowercasedString), at: 2)
            try statement.bind(.text(event.type.rawValue), at: 3)
            try statement.bind(.integer(event.occurredAt), at: 4)
            try statement.bind(.integer(receivedAt), at: 5)
            try statement.bind(.text(event.installationID), at: 6)
            try statement.bind(.text(event.platform), at: 7)
            try text(event.sdkVersion, 8)
            try text(event.appVersion, 9)
            try text(event.osVersion, 10)
            try text(event.deviceModel, 11)
            try text(event.userID, 12)
            try text(event.messageID, 13)
            try text(event.campaignID, 14)
            try text(event.dialect, 15)
            try text(event.source?.rawValue, 16)
            try text(event.appState?.rawValue, 17)
            try text(event.actionID, 18)
            try text(event.value, 19)
            try text(event.token, 20)
            try text(event.tokenType?.rawValue, 21)
            try text(event.environment, 22)
            try text(event.permission, 23)
            try text(event.attributes.map { JSONText.string(.object($0)) }, 24)
            while try statement.step() {}
            inserted.append(db.changes > 0)
        }
        return inserted
    }

    public func events(appID: String, query: EventQuery) throws -> EventPage {
        var conditions = ["app_id = ?1"]
        var bindings: [SQLiteValue] = [.text(appID)]
        func add(_ condition: String, _ value: SQLiteValue) {
            bindings.append(value)
            conditions.append(condition.replacingOccurrences(of: "?", with: "?\(bindings.count)"))
        }
        if let type = query.type { add("type = ?", .text(type.rawValue)) }
        if let messageID = query.messageID { add("message_id = ?", .text(messageID)) }
        if let campaignID = query.campaignID { add("campaign_id = ?", .text(campaignID)) }
        if let userID = query.userID { add("user_id = ?", .text(userID)) }
        if let since = query.since { add("occurred_at >= ?", .integer(since)) }
        if let until = query.until { add("occurred_at < ?", .integer(until)) }
        if let receivedSince = query.receivedSince { add("received_at >= ?", .integer(receivedSince)) }
        if let after = query.afterSequence { add("seq > ?", .integer(after)) }
        let limit = max(0, query.limit)
        bindings.append(.integer(Int64(limit) + 1))
        let sql = """
            SELECT \(Self.eventColumns) FROM events WHERE \(conditions.joined(separator: " AND "))
            ORDER BY seq LIMIT ?\(bindings.count)
            """
        var events = try reader.read { db in try db.query(sql, bindings, row: Self.eventRow) }
        var next: Int64?
        if events.count > limit {
            events.removeLast(events.count - limit)
            next = events.last?.sequence
        }
        return EventPage(events: events, nextSequence: next)
    }

    public func funnel(appID: String, scope: FunnelScope) throws -> EventFunnel {
        let (column, id) =
            switch scope {
            case .campaign(let id): ("campaign_id", id)
            case .message(let id): ("message_id", id)
            }
        return try reader.read { db in
            // One read transaction, so the per-type counts and the total see the same snapshot.
            try db.transaction(immediate: false) { try Self.funnel(db, appID: appID, column: column, id: id) }
        }
    }

    private static func funnel(_ db: SQLiteConnection, appID: String, column: String, id: String) throws
        -> EventFunnel
    {
        var funnel = EventFunnel()
        let rows = try db.query(
            """
            SELECT type, COUNT(*), COUNT(DISTINCT installation_id) FROM events
            WHERE app_id = ?1 AND \(column) = ?2 GROUP BY type
            """, [.text(appID), .text(id)]
        ) { row in (row.text(at: 0), row.int(at: 1), row.int(at: 2)) }
        for (type, events, installations) in rows {
            funnel.eventsByType[type] = events
            funnel.installationsByType[type] = installations
        }
        funnel.uniqueInstallations = Int(
            try db.scalar(
                "SELECT COUNT(DISTINCT installation_id) FROM events WHERE app_id = ?1 AND \(column) = ?2",
                [.text(appID), .text(id)])?.integerValue ?? 0)
        return funnel
    }

    static func eventRow(_ row: SQLiteStatement) -> StoredEvent {
        let attributes = row.optionalText(at: 23).flatMap { try? JSONText.parse(Data($0.utf8)).objectValue }
        let event = TidingsEvent(
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
        return StoredEvent(sequence: row.int64(at: 0), event: event, receivedAt: row.int64(at: 4))
    }
}
