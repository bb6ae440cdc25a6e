import TidingsStore

extension PostgresStore {
    public func installations(
        appID: String, audience: AudienceExpression, afterInstallationID: String?, limit: Int, now: Int64
    ) throws -> [Installation] {
        let (sql, values) = audience.listing(
            appID: appID, afterInstallationID: afterInstallationID, limit: limit, columns: Self.installationColumns,
            dialect: .postgres, now: now)
        return try read { db in try db.query(sql, values.map(Self.postgresValue), row: Self.installationRow) }
    }

    public func installationIDs(
        appID: String, audience: AudienceExpression, among installationIDs: [String], now: Int64
    ) throws -> Set<String> {
        guard !installationIDs.isEmpty else { return [] }
        let (sql, values) = audience.membership(
            appID: appID, installationIDs: installationIDs, dialect: .postgres, now: now)
        return Set(try read { db in try db.query(sql, values.map(Self.postgresValue)) { $0.text(0) } })
    }

    public func countInstallations(appID: String, audience: AudienceExpression, now: Int64) throws -> Int {
        let (sql, values) = audience.counting(appID: appID, dialect: .postgres, now: now)
        return Int(try read { db in try db.scalar(sql, values.map(Self.postgresValue)) } ?? 0)
    }

    static func postgresValue(_ value: AudienceSQLValue) -> PostgresValue {
        switch value {
        case .text(let text): .text(text)
        case .integer(let integer): .integer(integer)
        }
    }
}
