import Testing
import TidingsStore

/// The SQL an audience becomes: values only ever as parameters, numbered as each backend writes them, and the
/// costly conditions last in a chain.
@Suite struct AudienceSQLTests {
    @Test func valuesAreBoundNeverSpliced() throws {
        let hostile = #"x' OR '1'='1"#
        let audience = try AudienceExpression.parse(
            #"installation_id = "\#(hostile)" or tag:"\#(hostile)" or time_zone in ("\#(hostile)", b)"#)
        for dialect in [AudienceSQLDialect.sqlite, .postgres] {
            let (sql, values) = audience.listing(
                appID: "app';--", afterInstallationID: "i'", limit: 10, columns: "app_id, installation_id",
                dialect: dialect, now: 0)
            #expect(!sql.contains("'1'='1") && !sql.contains("app';--") && !sql.contains("i'"), "\(sql)")
            #expect(values.filter { $0 == .text(hostile) }.count == 3)
            #expect(values.first == .text("app';--"))
            let marker = dialect == .sqlite ? "?" : "$"
            for number in 1...values.count { #expect(sql.contains("\(marker)\(number)"), "\(sql)") }
            #expect(!sql.contains("\(marker)\(values.count + 1)"))
        }
    }

    @Test func chainsPutTagsAndVersionsLast() throws {
        let audience = try AudienceExpression.parse(
            "tag:vip and app_version >= 2 and language = ja and platform = ios and last_seen > 1d ago")
        let (sql, _) = audience.counting(appID: "a", dialect: .sqlite, now: 0)
        let order = ["lower(i.platform)", "i.updated_at", "lower(i.language)", "tidings_version_key", "EXISTS"]
            .map { sql.range(of: $0)?.lowerBound }
        #expect(order.allSatisfy { $0 != nil }, "\(sql)")
        let positions = order.compactMap { $0 }
        #expect(positions == positions.sorted(), "\(sql)")
    }

    @Test func negationIsPushedDownToTheConditions() throws {
        let (sql, _) = try AudienceExpression.parse("not (tag:a or language = ja)").counting(
            appID: "a", dialect: .postgres, now: 0)
        #expect(sql.contains("NOT COALESCE((lower(i.language)"), "\(sql)")
        #expect(sql.contains(" AND NOT COALESCE(EXISTS"), "\(sql)")
        #expect(sql.contains(#"tidings_version_key"#) == false)
    }
}
