import TidingsStore

extension PostgresStore {
    public func installations(
        appID: String, audience: AudienceExpression, afterInstallationID: String?, limit: Int, now: Int64
    ) throws -> [Installation] {
        let (sql, values) = audience.listing(
            appID: appID, afterInstallationID: afterInstallationID, limit: limit, columns: Self.installationColumns,
            dialect: .postgres, now: now)
        return try readPageInKeyOrder(sql, values.map(Self.postgresValue))
    }

    /// A page of installations after a cursor (`sql` orders by `installation_id` and limits), read by walking the
    /// primary key from the cursor, which stops at the page's end. With statistics taken while the app was small
    /// (a campaign sent right after an import), PostgreSQL instead read every installation of the app past the
    /// cursor, through another index or a bitmap, and sorted them for the page: a resolution of N installations
    /// read N²/2 rows (28,000 for the second page of 30,000; BENCHMARKS.md). Sorting switched off for the page's
    /// transaction leaves the key order the one plan without a sort; a page that needs one (a user's
    /// installations, by an expression) still gets it, as every plan for it then pays the same.
    func readPageInKeyOrder(_ sql: String, _ parameters: [PostgresValue]) throws -> [Installation] {
        try read { db in
            try db.transaction {
                try db.execute(Self.pageInKeyOrderSQL)
                return try db.query(sql, parameters, row: Self.installationRow)
            }
        }
    }

    static let pageInKeyOrderSQL = "SET LOCAL enable_sort = off"

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
