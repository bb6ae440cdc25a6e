import Foundation
import TidingsHTTP
import TidingsModel
import TidingsPush
import TidingsStore

/// The administration API: apps, their keys, APNs and FCM credentials, and identity keys, for an admin key
/// (`tdg_adm_…`) that no app or server key can stand in for. Secrets (key secrets, private keys, service
/// accounts) go in once and never come back out: answers describe them, and the logs never carry them.
extension APIService {
    func adminRoutes() -> [HTTPRoute] {
        [
            HTTPRoute("GET", "/v1/admin/apps") { try await self.adminListApps($0) },
            idempotent(HTTPRoute("POST", "/v1/admin/apps") { try await self.adminCreateApp($0) }, .adminKey),
            HTTPRoute("GET", "/v1/admin/apps/{app}") { try await self.adminGetApp($0) },
            HTTPRoute("PATCH", "/v1/admin/apps/{app}") { try await self.adminUpdateApp($0) },
            HTTPRoute("GET", "/v1/admin/apps/{app}/keys") { try await self.adminListKeys($0) },
            idempotent(
                HTTPRoute("POST", "/v1/admin/apps/{app}/keys") { try await self.adminCreateKey($0) }, .adminKey,
                secretFields: ["secret"]),
            HTTPRoute("DELETE", "/v1/admin/keys/{key_id}") { try await self.adminRevokeKey($0) },
            HTTPRoute("PUT", "/v1/admin/apps/{app}/apns") { try await self.adminSetAPNs($0) },
            HTTPRoute("DELETE", "/v1/admin/apps/{app}/apns") { try await self.adminRemoveCredentials($0, .apns) },
            HTTPRoute("PUT", "/v1/admin/apps/{app}/fcm") { try await self.adminSetFCM($0) },
            HTTPRoute("DELETE", "/v1/admin/apps/{app}/fcm") { try await self.adminRemoveCredentials($0, .fcm) },
            HTTPRoute("GET", "/v1/admin/apps/{app}/identity-keys") { try await self.adminListIdentityKeys($0) },
            idempotent(
                HTTPRoute("POST", "/v1/admin/apps/{app}/identity-keys") { try await self.adminAddIdentityKey($0) },
                .adminKey),
            HTTPRoute("DELETE", "/v1/admin/apps/{app}/identity-keys/{key_id}") {
                try await self.adminRemoveIdentityKey($0)
            },
        ]
    }

    private var administration: AppAdministration { AppAdministration(store: store, clock: clock) }

    func adminListApps(_ request: HTTPRequest) async throws -> HTTPResponse {
        _ = try authenticate(request, .adminKey)
        return json(["apps": .array(try admin { try store.apps() }.map(appJSON))])
    }

    func adminCreateApp(_ request: HTTPRequest) async throws -> HTTPResponse {
        _ = try authenticate(request, .adminKey)
        let body = try jsonObject(request, maximumBytes: configuration.maximumBodyBytes)
        try Self.allowOnly(body, ["name", "bundle_id"])
        let name = try Self.requiredString(body, "name")
        let bundleID = try Self.requiredString(body, "bundle_id")
        let app = try admin { try administration.createApp(name: name, bundleID: bundleID) }
        logger.info("app created", metadata: ["app_id": app.id])
        return json(appJSON(app), status: 201)
    }

    func adminGetApp(_ request: HTTPRequest) async throws -> HTTPResponse {
        _ = try authenticate(request, .adminKey)
        return json(appJSON(try adminApp(request)))
    }

    /// `PATCH /v1/admin/apps/{app}`: `identity_verification`, `requests_per_second` (`null`: the server's
    /// default) and `bundle_id`; members left out stay as they are.
    func adminUpdateApp(_ request: HTTPRequest) async throws -> HTTPResponse {
        _ = try authenticate(request, .adminKey)
        let app = try adminApp(request)
        let body = try jsonObject(request, maximumBytes: configuration.maximumBodyBytes)
        try Self.allowOnly(body, ["identity_verification", "requests_per_second", "bundle_id"])
        var mode: AppRecord.IdentityVerification?
        if let value = body["identity_verification"] {
            guard let text = value.stringValue, let parsed = AppRecord.IdentityVerification(rawValue: text) else {
                throw HTTPError(
                    status: 400, code: "invalid_field",
                    message: "identity_verification must be off, optional or required")
            }
            mode = parsed
        }
        var rate: Int??
        switch body["requests_per_second"] {
        case nil: rate = nil
        case .null?: rate = .some(nil)
        case .integer(let value)?: rate = .some(Int(clamping: value))
        default:
            throw HTTPError(
                status: 400, code: "invalid_field", message: "requests_per_second must be an integer or null")
        }
        var bundleID: String?
        if body["bundle_id"] != nil { bundleID = try Self.requiredString(body, "bundle_id") }
        let updated = try admin {
            try administration.updateApp(
                app.id, identityVerification: mode, requestsPerSecond: rate, bundleID: bundleID)
        }
        logger.info("app settings changed", metadata: ["app_id": app.id])
        return json(appJSON(updated))
    }

    func adminListKeys(_ request: HTTPRequest) async throws -> HTTPResponse {
        _ = try authenticate(request, .adminKey)
        let app = try adminApp(request)
        return json(["keys": .array(try admin { try store.keys(appID: app.id) }.map(Self.keyJSON))])
    }

    /// `POST /v1/admin/apps/{app}/keys` `{"kind": "app"|"server"}`: the key's secret is in this answer only.
    func adminCreateKey(_ request: HTTPRequest) async throws -> HTTPResponse {
        _ = try authenticate(request, .adminKey)
        let app = try adminApp(request)
        let body = try jsonObject(request, maximumBytes: configuration.maximumBodyBytes)
        try Self.allowOnly(body, ["kind"])
        guard let text = body["kind"]?.stringValue, let kind = APIKeyKind(rawValue: text), kind != .admin else {
            throw HTTPError(status: 400, code: "invalid_field", message: "kind must be app or server")
        }
        let issued = try admin { try administration.createKey(app: app.id, kind: kind) }
        logger.info("key created", metadata: ["app_id": app.id, "key_id": issued.record.id])
        return json(["key": Self.keyJSON(issued.record), "secret": .string(issued.secret)], status: 201)
    }

    /// `DELETE /v1/admin/keys/{key_id}`: revokes an app or server key (admin keys are revoked with `tidingsd`).
    func adminRevokeKey(_ request: HTTPRequest) async throws -> HTTPResponse {
        _ = try authenticate(request, .adminKey)
        let keyID = try identifier(request, "key_id")
        guard let key = try admin({ try store.keys(appID: nil) }).first(where: { $0.id == keyID }), key.kind != .admin
        else {
            throw HTTPError(status: 404, code: "not_found", message: "there is no app or server key \(keyID)")
        }
        let revoked = try admin { try administration.revokeKey(id: keyID) }
        logger.info("key revoked", metadata: ["key_id": keyID])
        return json(Self.keyJSON(revoked))
    }

    /// `PUT /v1/admin/apps/{app}/apns` `{"key": "<.p8 contents>", "key_id", "team_id"}`.
    func adminSetAPNs(_ request: HTTPRequest) async throws -> HTTPResponse {
        _ = try authenticate(request, .adminKey)
        let app = try adminApp(request)
        let body = try jsonObject(request, maximumBytes: configuration.maximumBodyBytes)
        try Self.allowOnly(body, ["key", "key_id", "team_id"])
        let key = try Self.requiredString(body, "key")
        let keyID = try Self.requiredString(body, "key_id")
        let teamID = try Self.requiredString(body, "team_id")
        let credentials = try apnsCredentials()
        do {
            try credentials.save(
                appID: app.id, keyPEM: Data(key.utf8), keyID: keyID, teamID: teamID)
        } catch  where error.code == .storageFailed {
            throw HTTPError(status: 500, code: "storage_failed", message: error.message)
        } catch {
            throw HTTPError(status: 400, code: "invalid_apns_credentials", message: error.message)
        }
        logger.info("APNs credentials set", metadata: ["app_id": app.id, "key_id": keyID])
        return json(appJSON(app))
    }

    /// `PUT /v1/admin/apps/{app}/fcm` `{"service_account": {...}}`: the service-account JSON as Google gives it.
    func adminSetFCM(_ request: HTTPRequest) async throws -> HTTPResponse {
        _ = try authenticate(request, .adminKey)
        let app = try adminApp(request)
        let body = try jsonObject(request, maximumBytes: configuration.maximumBodyBytes)
        try Self.allowOnly(body, ["service_account"])
        guard let account = body["service_account"], account.objectValue != nil else {
            throw HTTPError(
                status: 400, code: "invalid_field", message: "service_account must be the service-account JSON object")
        }
        let credentials = try fcmCredentials()
        do {
            try credentials.save(
                appID: app.id, serviceAccount: JSONText.data(account))
        } catch  where error.code == .storageFailed {
            throw HTTPError(status: 500, code: "storage_failed", message: error.message)
        } catch {
            throw HTTPError(status: 400, code: "invalid_fcm_credentials", message: error.message)
        }
        logger.info("FCM credentials set", metadata: ["app_id": app.id])
        return json(appJSON(app))
    }

    enum CredentialKind { case apns, fcm }

    func adminRemoveCredentials(_ request: HTTPRequest, _ kind: CredentialKind) async throws -> HTTPResponse {
        _ = try authenticate(request, .adminKey)
        let app = try adminApp(request)
        let removed: Bool
        do {
            switch kind {
            case .apns: removed = try apnsCredentials().remove(appID: app.id)
            case .fcm: removed = try fcmCredentials().remove(appID: app.id)
            }
        } catch let error as HTTPError {
            throw error
        } catch {
            throw HTTPError(status: 500, code: "storage_failed", message: "\(error)")
        }
        guard removed else {
            throw HTTPError(status: 404, code: "not_found", message: "the app has no such credentials")
        }
        return json(appJSON(app))
    }

    func adminListIdentityKeys(_ request: HTTPRequest) async throws -> HTTPResponse {
        _ = try authenticate(request, .adminKey)
        let app = try adminApp(request)
        let keys = try admin { try store.identityKeys(appID: app.id) }
        return json(["identity_keys": .array(keys.map(Self.identityKeyJSON))])
    }

    /// `POST /v1/admin/apps/{app}/identity-keys` `{"key_id", "public_key": "<PEM>"}`.
    func adminAddIdentityKey(_ request: HTTPRequest) async throws -> HTTPResponse {
        _ = try authenticate(request, .adminKey)
        let app = try adminApp(request)
        let body = try jsonObject(request, maximumBytes: configuration.maximumBodyBytes)
        try Self.allowOnly(body, ["key_id", "public_key"])
        let keyID = try Self.requiredString(body, "key_id")
        let pem = try Self.requiredString(body, "public_key")
        let record = try admin { try administration.addIdentityKey(app: app.id, keyID: keyID, pem: pem) }
        logger.info("identity key added", metadata: ["app_id": app.id, "key_id": keyID])
        return json(Self.identityKeyJSON(record), status: 201)
    }

    func adminRemoveIdentityKey(_ request: HTTPRequest) async throws -> HTTPResponse {
        _ = try authenticate(request, .adminKey)
        let app = try adminApp(request)
        let keyID = try parameter(request, "key_id")
        try admin { try administration.removeIdentityKey(app: app.id, keyID: keyID) }
        logger.info("identity key removed", metadata: ["app_id": app.id, "key_id": keyID])
        return HTTPResponse(status: 204)
    }

    // MARK: Helpers

    /// The app named by the `{app}` path parameter, by id or name.
    private func adminApp(_ request: HTTPRequest) throws -> AppRecord {
        let reference = try identifier(request, "app")
        return try admin { try administration.app(reference) }
    }

    /// Runs an administrative call, turning its refusals into HTTP errors.
    func admin<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            return try storeCall(body)
        } catch let error as AdministrationError {
            throw HTTPError(status: 400, code: error.code, message: error.message)
        }
    }

    /// Where this server keeps APNs keys: the store (shared), or files in its data directory.
    private func apnsCredentials() throws -> APNsCredentialsStore {
        if let backing = configuration.credentialBacking { return APNsCredentialsStore(backing: backing) }
        return APNsCredentialsStore(dataDirectory: try credentialsDirectory())
    }

    /// Where this server keeps FCM service accounts: the store (shared), or files in its data directory.
    private func fcmCredentials() throws -> FCMCredentialsStore {
        if let backing = configuration.credentialBacking { return FCMCredentialsStore(backing: backing) }
        return FCMCredentialsStore(dataDirectory: try credentialsDirectory())
    }

    private func credentialsDirectory() throws -> URL {
        guard let directory = configuration.credentialsDirectory else {
            throw HTTPError(
                status: 503, code: "no_credentials_directory",
                message: "this server keeps no credentials; start tidingsd with a data directory")
        }
        return directory
    }

    /// An app as the administration API shows it: settings, and which credentials it has (never the secrets).
    private func appJSON(_ app: AppRecord) -> JSONValue {
        var apns: JSONValue = ["configured": false]
        var fcm: JSONValue = ["configured": false]
        if configuration.credentialBacking != nil || configuration.credentialsDirectory != nil {
            if let credentials = try? apnsCredentials().load(appID: app.id) {
                apns = [
                    "configured": true, "key_id": .string(credentials.keyID), "team_id": .string(credentials.teamID),
                ]
            }
            if let account = try? fcmCredentials().load(appID: app.id) {
                fcm = [
                    "configured": true, "project_id": .string(account.projectID),
                    "client_email": .string(account.clientEmail),
                ]
            }
        }
        return [
            "app_id": .string(app.id), "name": .string(app.name), "bundle_id": .string(app.bundleID),
            "created_at": .integer(app.createdAt), "identity_verification": .string(app.identityVerification.rawValue),
            "requests_per_second": app.requestsPerSecond.map { .integer(Int64($0)) } ?? .null,
            "apns": apns, "fcm": fcm,
        ]
    }

    static func keyJSON(_ key: APIKeyRecord) -> JSONValue {
        [
            "key_id": .string(key.id), "app_id": key.appID.isEmpty ? .null : .string(key.appID),
            "kind": .string(key.kind.rawValue), "hint": .string(key.hint), "created_at": .integer(key.createdAt),
            "revoked_at": key.revokedAt.map(JSONValue.integer) ?? .null,
        ]
    }

    static func identityKeyJSON(_ key: IdentityKeyRecord) -> JSONValue {
        [
            "key_id": .string(key.keyID), "algorithm": .string(key.algorithm.rawValue),
            "public_key": .string(key.publicKeyPEM), "created_at": .integer(key.createdAt),
        ]
    }

    static func allowOnly(_ body: [String: JSONValue], _ fields: Set<String>) throws {
        for key in body.keys.sorted() where !fields.contains(key) {
            throw HTTPError(
                status: 400, code: "invalid_field",
                message: "\(key) is not a field here; expected \(fields.sorted().joined(separator: ", "))")
        }
    }

    static func requiredString(_ body: [String: JSONValue], _ field: String) throws -> String {
        guard let value = body[field]?.stringValue, !value.isEmpty else {
            throw HTTPError(status: 400, code: "invalid_field", message: "\(field) must be a non-empty string")
        }
        return value
    }
}
