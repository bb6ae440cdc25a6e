/// What differs between the SQL backends when an audience is translated: how parameters are written and how
/// version keys are made to compare byte by byte.
package enum AudienceSQLDialect: Sendable {
    /// `?1`, `?2`...; `tidings_version_key` is registered on every store connection.
    case sqlite
    /// `$1`, `$2`...; `tidings_version_key` is a SQL function of the schema, compared in the `C` collation.
    case postgres

    func placeholder(_ number: Int) -> String {
        switch self {
        case .sqlite: "?\(number)"
        case .postgres: "$\(number)"
        }
    }

    /// The version key of the installation's app version: PostgreSQL stores it with each installation
    /// (`app_version_key`, indexed), SQLite computes it.
    var appVersionKey: String {
        switch self {
        case .sqlite: versionKey("i.app_version")
        case .postgres: "i.app_version_key"
        }
    }

    /// The version key of `column`, ready to compare with `<` against another key.
    func versionKey(_ column: String) -> String {
        switch self {
        case .sqlite: "tidings_version_key(\(column))"
        case .postgres: "tidings_version_key(\(column)) COLLATE \"C\""
        }
    }
}
