/// Which installations `GET /v1/installations` answers: every member that is set must match.
struct InstallationFilter: Sendable, Hashable {
    /// The device fields `devices list` filters on: the option (without `--`) and the query parameter.
    static let deviceFields: [(option: String, parameter: String)] = [
        ("platform", "platform"), ("os-name", "os_name"), ("app-version", "app_version"),
        ("language", "language"), ("country", "country"), ("timezone", "timezone"), ("permission", "permission"),
    ]

    var userID: String?
    /// Installations whose user carries this tag.
    var tag: String?
    /// Exact matches by query parameter (`language`, `timezone`, ...); an empty value matches installations
    /// where the field is unknown, which is how the server reads `timezone=`.
    var fields: [String: String] = [:]

    /// The query items of a request for one page; fields in parameter order, so URLs are stable.
    func query(cursor: String?, limit: Int?) -> [(String, String?)] {
        [("user_id", userID), ("tag", tag)] + fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
            + [("cursor", cursor), ("limit", limit.map(String.init))]
    }
}
