import TidingsModel

extension AdminClient {
    /// `GET /v1/admin/apps/{app}/send-settings`.
    func sendSettings(_ app: String) async throws(ServerClientError) -> JSONValue {
        try await client.json("GET", ["v1", "admin", "apps", app, "send-settings"])
    }

    /// `PATCH /v1/admin/apps/{app}/send-settings`: `rate_per_second`, `frequency_cap`, `default_ttl` (null
    /// removes one); what `changes` leaves out stays.
    func updateSendSettings(_ app: String, _ changes: JSONValue) async throws(ServerClientError) -> JSONValue {
        try await client.json("PATCH", ["v1", "admin", "apps", app, "send-settings"], body: changes)
    }
}
