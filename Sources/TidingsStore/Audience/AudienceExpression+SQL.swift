import Foundation

extension AudienceExpression {
    /// The statement that lists a page of `appID`'s installations in this audience, in installation-id order
    /// after `afterInstallationID` (keyset pagination, so the millionth row costs what the first does).
    ///
    /// Every value is a bound parameter: the app id first, then the expression's values, then the cursor and the
    /// page size. `columns` are the backend's installation columns.
    package func listing(
        appID: String, afterInstallationID: String?, limit: Int, columns: String, dialect: AudienceSQLDialect,
        now: Int64
    ) -> (sql: String, values: [AudienceSQLValue]) {
        var builder = AudienceSQLBuilder(dialect: dialect, now: now, values: [.text(appID)])
        let condition = builder.translate(self, negated: false)
        var sql = "SELECT "
        sql += columns.split(separator: ",").map { "i." + $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .joined(separator: ", ")
        sql += " FROM installations i WHERE i.app_id = \(dialect.placeholder(1))"
        if let afterInstallationID {
            sql += " AND i.installation_id > \(builder.bind(.text(afterInstallationID)))"
        }
        sql += " AND (\(condition)) ORDER BY i.installation_id LIMIT \(builder.bind(.integer(Int64(max(0, limit)))))"
        return (sql, builder.values)
    }

    /// The statement that selects which of `installationIDs` (of `appID`) are in this audience.
    ///
    /// On PostgreSQL each installation is looked up alone, in a lateral subquery that `LIMIT` keeps from being
    /// flattened: as `installation_id IN (...)`, under statistics that predate the app's installations (an
    /// import), PostgreSQL walked every installation of the app with the ids as a filter, for every chunk a
    /// local-time message rechecks (`PostgresPlansUnderOldStatisticsTests`).
    package func membership(
        appID: String, installationIDs: [String], dialect: AudienceSQLDialect, now: Int64
    ) -> (sql: String, values: [AudienceSQLValue]) {
        var builder = AudienceSQLBuilder(dialect: dialect, now: now, values: [.text(appID)])
        let condition = builder.translate(self, negated: false)
        let ids = installationIDs.map { builder.bind(.text($0)) }.joined(separator: ", ")
        let app = dialect.placeholder(1)
        let sql =
            switch dialect {
            case .sqlite:
                "SELECT i.installation_id FROM installations i WHERE i.app_id = \(app)"
                    + " AND i.installation_id IN (\(ids)) AND (\(condition))"
            case .postgres:
                "SELECT i.installation_id FROM unnest(ARRAY[\(ids)]::text[]) AS k(installation_id)"
                    + " CROSS JOIN LATERAL (SELECT * FROM installations"
                    + " WHERE app_id = \(app) AND installation_id = k.installation_id LIMIT 1) AS i"
                    + " WHERE (\(condition))"
            }
        return (sql, builder.values)
    }

    /// The statement that counts `appID`'s installations in this audience.
    package func counting(appID: String, dialect: AudienceSQLDialect, now: Int64) -> (
        sql: String, values: [AudienceSQLValue]
    ) {
        var builder = AudienceSQLBuilder(dialect: dialect, now: now, values: [.text(appID)])
        let condition = builder.translate(self, negated: false)
        return (
            "SELECT count(*) FROM installations i WHERE i.app_id = \(dialect.placeholder(1)) AND (\(condition))",
            builder.values
        )
    }
}
