import TidingsModel

/// Typed calls to tidingsd's administration API (`/v1/admin/...`), made with an admin key (`tdg_adm_…`).
///
/// ```swift
/// let admin = try AdminClient(arguments: arguments)   // --admin-key, TIDINGS_ADMIN_KEY or admin_key
/// let app = try await admin.createApp(name: "Demo", bundleID: "com.example.demo")
/// let issued = try await admin.createKey(app: "Demo", kind: "server")   // issued["secret"]: shown once
/// ```
///
/// Answers are the server's JSON as it sent them, so `--json` prints exactly what the API documents. Secrets
/// only go in: the server never answers with a private key or a service account, and a key's secret only in
/// the answer that creates it.
struct AdminClient: Sendable {
    let client: ServerClient

    init(client: ServerClient) {
        self.client = client
    }

    /// The client for a command parsed with ``ServerConnection/adminOptionNames``.
    /// - Throws: ``CommandLineError`` (usage) when no admin key is set anywhere or the address is malformed.
    init(arguments: ArgumentList) throws {
        self.init(client: try ServerClient(arguments: arguments, key: .admin))
    }

    // MARK: Apps

    /// `GET /v1/admin/apps`: `{"apps": [...]}`.
    func apps() async throws(ServerClientError) -> JSONValue {
        try await client.json("GET", ["v1", "admin", "apps"])
    }

    /// `GET /v1/admin/apps/{app}`, `app` an id or a name.
    func app(_ app: String) async throws(ServerClientError) -> JSONValue {
        try await client.json("GET", ["v1", "admin", "apps", app])
    }

    /// `POST /v1/admin/apps`.
    func createApp(name: String, bundleID: String) async throws(ServerClientError) -> JSONValue {
        try await client.json(
            "POST", ["v1", "admin", "apps"], body: ["name": .string(name), "bundle_id": .string(bundleID)])
    }

    /// `PATCH /v1/admin/apps/{app}`: `changes` holds `identity_verification`, `requests_per_second` (null: the
    /// server's default) or `bundle_id`; what it leaves out stays.
    func updateApp(_ app: String, _ changes: JSONValue) async throws(ServerClientError) -> JSONValue {
        try await client.json("PATCH", ["v1", "admin", "apps", app], body: changes)
    }

    /// `PUT /v1/admin/apps/{app}/apns`: the `.p8` key's contents go to the server, which answers the app with
    /// the key id and team id only.
    func setAPNs(_ app: String, keyPEM: String, keyID: String, teamID: String) async throws(ServerClientError)
        -> JSONValue
    {
        try await client.json(
            "PUT", ["v1", "admin", "apps", app, "apns"],
            body: ["key": .string(keyPEM), "key_id": .string(keyID), "team_id": .string(teamID)])
    }

    /// `PUT /v1/admin/apps/{app}/fcm`: the service account as Google gives it; the answer names its project
    /// and client email only.
    func setFCM(_ app: String, serviceAccount: JSONValue) async throws(ServerClientError) -> JSONValue {
        try await client.json("PUT", ["v1", "admin", "apps", app, "fcm"], body: ["service_account": serviceAccount])
    }

    /// `DELETE /v1/admin/apps/{app}/apns` or `/fcm`: answers the app without them.
    func removeCredentials(_ app: String, provider: String) async throws(ServerClientError) -> JSONValue {
        try await client.json("DELETE", ["v1", "admin", "apps", app, provider])
    }

    // MARK: Identity keys

    /// `GET /v1/admin/apps/{app}/identity-keys`: `{"identity_keys": [...]}`, public keys only.
    func identityKeys(_ app: String) async throws(ServerClientError) -> JSONValue {
        try await client.json("GET", ["v1", "admin", "apps", app, "identity-keys"])
    }

    /// `POST /v1/admin/apps/{app}/identity-keys`: a public key (PEM) that verifies the app's user tokens.
    func addIdentityKey(_ app: String, keyID: String, publicKeyPEM: String) async throws(ServerClientError)
        -> JSONValue
    {
        try await client.json(
            "POST", ["v1", "admin", "apps", app, "identity-keys"],
            body: ["key_id": .string(keyID), "public_key": .string(publicKeyPEM)])
    }

    /// `DELETE /v1/admin/apps/{app}/identity-keys/{key_id}`: answers 204 with no body.
    func removeIdentityKey(_ app: String, keyID: String) async throws(ServerClientError) {
        _ = try await client.send(
            "DELETE", ["v1", "admin", "apps", app, "identity-keys", keyID], accept: "application/json")
    }

    // MARK: Keys

    /// `GET /v1/admin/apps/{app}/keys`: `{"keys": [...]}`, each with its hint and never its secret.
    func keys(app: String) async throws(ServerClientError) -> JSONValue {
        try await client.json("GET", ["v1", "admin", "apps", app, "keys"])
    }

    /// `POST /v1/admin/apps/{app}/keys`: `{"key": {...}, "secret": "tdg_…"}`, the only answer with the secret.
    func createKey(app: String, kind: String) async throws(ServerClientError) -> JSONValue {
        try await client.json("POST", ["v1", "admin", "apps", app, "keys"], body: ["kind": .string(kind)])
    }

    /// `DELETE /v1/admin/keys/{key_id}`: answers the revoked key.
    func revokeKey(_ keyID: String) async throws(ServerClientError) -> JSONValue {
        try await client.json("DELETE", ["v1", "admin", "keys", keyID])
    }
}
