import TidingsSQLite

extension SQLiteStore {
    /// The SQL functions the store's statements call, registered on each of its connections.
    static func addFunctions(_ database: SQLiteDatabase) throws {
        try database.read { db in try db.addTextFunction(named: "tidings_version_key") { VersionKey.key(utf8: $0) } }
    }

    public func installations(
        appID: String, audience: AudienceExpression, afterInstallationID: String?, limit: Int, now: Int64
    ) throws -> [Installation] {
        let (sql, values) = audience.listing(
            appID: appID, afterInstallationID: afterInstallationID, limit: limit, columns: Self.installationColumns,
            dialect: .sqlite, now: now)
        return try reader.read { db in try db.query(sql, values.map(Self.sqliteValue), row: Self.installationRow) }
    }

    public func installationIDs(
        appID: String, audience: AudienceExpression, among installationIDs: [String], now: Int64
    ) throws -> Set<String> {
        guard !installationIDs.isEmpty else { return [] }
        let (sql, values) = audience.membership(
            appID: appID, installationIDs: installationIDs, dialect: .sqlite, now: now)
        return Set(try reader.read { db in try db.query(sql, values.map(Self.sqliteValue)) { $0.text(at: 0) } })
    }

    public func countInstallations(appID: String, audience: AudienceExpression, now: Int64) throws -> Int {
        let (sql, values) = audience.counting(appID: appID, dialect: .sqlite, now: now)
        return try reader.read { db in Int(try db.scalar(sql, values.map(Self.sqliteValue))?.integerValue ?? 0) }
    }

    static func sqliteValue(_ value: AudienceSQLValue) -> SQLiteValue {
        switch value {
        case .text(let text): .text(text)
        case .integer(let integer): .integer(integer)
        }
    }
}
