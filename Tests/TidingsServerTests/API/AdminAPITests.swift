import Foundation
import Testing
import TidingsCrypto
import TidingsHTTP
import TidingsModel
import TidingsServer
import TidingsStore
import TidingsStoreTesting
import TidingsTestSupport

/// The administration API (`/v1/admin/...`): who may reach it, apps and their settings, keys, APNs and FCM
/// credentials, identity keys, and that no secret ever comes back out.
@Suite struct AdminAPITests {
    /// A harness with an admin key, and a credentials directory unless `credentials` is false.
    struct Admin {
        let harness: APIHarness
        let adminKey: String
        let credentialsDirectory: URL?

        init(credentials: Bool = true) throws {
            let directory = credentials ? StoreBackend.root.appendingPathComponent("creds-\(UUID().uuidString)") : nil
            harness = try APIHarness { $0.credentialsDirectory = directory }
            credentialsDirectory = directory
            adminKey = try AppAdministration(store: harness.store).createAdminKey().secret
        }

        func call(
            _ method: String, _ path: String, json: JSONValue? = nil, body: Data? = nil, key: String? = nil
        ) async throws -> APIHarness.Reply {
            try await harness.call(method, path, key: key ?? adminKey, json: json, body: body)
        }
    }

    static func text(_ reply: APIHarness.Reply) -> String { String(decoding: reply.response.body, as: UTF8.self) }

    // MARK: Who may administer

    static let adminRoutes: [(String, String)] = [
        ("GET", "/v1/admin/apps"), ("POST", "/v1/admin/apps"), ("GET", "/v1/admin/apps/main"),
        ("PATCH", "/v1/admin/apps/main"), ("GET", "/v1/admin/apps/main/keys"), ("POST", "/v1/admin/apps/main/keys"),
        ("DELETE", "/v1/admin/keys/key_0000000000000000"), ("PUT", "/v1/admin/apps/main/apns"),
        ("DELETE", "/v1/admin/apps/main/apns"), ("PUT", "/v1/admin/apps/main/fcm"),
        ("DELETE", "/v1/admin/apps/main/fcm"), ("GET", "/v1/admin/apps/main/identity-keys"),
        ("POST", "/v1/admin/apps/main/identity-keys"), ("DELETE", "/v1/admin/apps/main/identity-keys/k1"),
    ]

    @Test(arguments: adminRoutes.map { "\($0.0) \($0.1)" })
    func appAndServerKeysAreForbiddenOnEveryAdminRouteAndNoKeyIsUnauthorized(_ route: String) async throws {
        let parts = route.split(separator: " ").map(String.init)
        let admin = try Admin()
        let harness = admin.harness
        for key in [harness.appKey, harness.serverKey, harness.otherServerKey] {
            let reply = try await harness.call(parts[0], parts[1], key: key, json: [:])
            #expect(reply.status == 403, "\(route): \(reply.json)")
            #expect(reply.errorCode == "forbidden")
            #expect(reply.errorMessage.contains("admin key"))
        }
        let none = try await harness.call(parts[0], parts[1], json: [:])
        #expect(none.status == 401)
        // Nothing was made by the refused calls.
        #expect(try harness.store.apps().count == 2)
        #expect(try harness.store.keys(appID: nil).count == 5)
    }

    static let appRoutes: [(String, String)] = [
        ("GET", "/v1/installations"), ("GET", "/v1/installations/inst-1"), ("PUT", "/v1/installations/inst-1"),
        ("GET", "/v1/events"), ("POST", "/v1/messages"), ("GET", "/v1/users/u1/export"), ("DELETE", "/v1/users/u1"),
        ("GET", "/v1/users/u1/tags"),
    ]

    @Test(arguments: appRoutes.map { "\($0.0) \($0.1)" })
    func anAdminKeyIsForbiddenOnAppRoutes(_ route: String) async throws {
        let parts = route.split(separator: " ").map(String.init)
        let admin = try Admin()
        try await admin.harness.register("inst-1", ["user_id": "u1"], key: admin.harness.serverKey)
        let reply = try await admin.call(parts[0], parts[1], json: [:])
        #expect(reply.status == 403, "\(route): \(reply.json)")
        #expect(reply.errorCode == "forbidden")
        #expect(reply.errorMessage.contains("belongs to no app"))
        // The installation is untouched by the admin key.
        #expect(try admin.harness.store.installation(appID: "app_main", installationID: "inst-1")?.userID == "u1")
    }

    @Test func aRevokedAdminKeyIs401AndAnUnknownOneToo() async throws {
        let admin = try Admin()
        let store = admin.harness.store
        let record = try #require(try store.keys(appID: nil).first { $0.kind == .admin })
        #expect(try await admin.call("GET", "/v1/admin/apps").status == 200)
        try store.revokeKey(id: record.id, at: admin.harness.now)
        let revoked = try await admin.call("GET", "/v1/admin/apps")
        #expect(revoked.status == 401)
        #expect(revoked.errorCode == "revoked_key")
        let unknown = try await admin.call(
            "GET", "/v1/admin/apps", key: "tdg_adm_" + Base64URL.encode(SecureRandom.bytes(32)))
        #expect(unknown.status == 401)
        #expect(unknown.errorCode == "invalid_key")
    }

    @Test func anAdminKeyCannotBeRevokedThroughTheAPI() async throws {
        let admin = try Admin()
        let record = try #require(try admin.harness.store.keys(appID: nil).first { $0.kind == .admin })
        let reply = try await admin.call("DELETE", "/v1/admin/keys/\(record.id)")
        #expect(reply.status == 404)
        #expect(try admin.harness.store.keys(appID: nil).first { $0.id == record.id }?.isRevoked == false)
        #expect(try await admin.call("GET", "/v1/admin/apps").status == 200)
    }

    // MARK: Apps

    @Test func appsAreCreatedListedAndReadByIDOrName() async throws {
        let admin = try Admin()
        admin.harness.clock.advance(by: .seconds(1))
        let created = try await admin.call(
            "POST", "/v1/admin/apps", json: ["name": "shop", "bundle_id": "com.example.shop"])
        #expect(created.status == 201, "\(created.json)")
        let appID = try #require(created.json["app_id"]?.stringValue)
        #expect(appID.hasPrefix("app_"))
        #expect(created.json["name"] == "shop")
        #expect(created.json["bundle_id"] == "com.example.shop")
        #expect(created.json["identity_verification"] == "off")
        #expect(created.json["requests_per_second"] == .null)
        #expect(created.json["created_at"] == .integer(admin.harness.now))
        #expect(created.json["apns"]?["configured"] == false)
        #expect(created.json["fcm"]?["configured"] == false)
        #expect(try admin.harness.store.app(id: appID)?.name == "shop")

        let list = try await admin.call("GET", "/v1/admin/apps")
        #expect(list.json["apps"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["main", "other", "shop"])
        #expect(try await admin.call("GET", "/v1/admin/apps/shop").json == created.json)
        #expect(try await admin.call("GET", "/v1/admin/apps/\(appID)").json == created.json)
        let missing = try await admin.call("GET", "/v1/admin/apps/nope")
        #expect(missing.status == 404)
        #expect(missing.errorCode == "not_found")
    }

    @Test func aTakenNameIs409AndCreatesNothing() async throws {
        let admin = try Admin()
        let reply = try await admin.call(
            "POST", "/v1/admin/apps", json: ["name": "main", "bundle_id": "com.example.x"])
        #expect(reply.status == 409)
        #expect(reply.errorCode == "conflict")
        #expect(try admin.harness.store.apps().count == 2)
    }

    static let badApps: [(String, JSONValue, String)] = [
        ("empty name", ["name": "", "bundle_id": "com.example.a"], "invalid_field"),
        ("name with space", ["name": "has space", "bundle_id": "com.example.a"], "invalid_name"),
        (
            "name too long", ["name": .string(String(repeating: "n", count: 65)), "bundle_id": "com.example.a"],
            "invalid_name"
        ),
        ("bundle without dot", ["name": "ok", "bundle_id": "nodots"], "invalid_bundle_id"),
        ("bundle with space", ["name": "ok", "bundle_id": "com.ex ample"], "invalid_bundle_id"),
        ("bundle with underscore", ["name": "ok", "bundle_id": "com.ex_ample"], "invalid_bundle_id"),
        ("missing bundle", ["name": "ok"], "invalid_field"),
        ("name not a string", ["name": 5, "bundle_id": "com.example.a"], "invalid_field"),
        ("unknown field", ["name": "ok", "bundle_id": "com.example.a", "secret": "x"], "invalid_field"),
    ]

    @Test(arguments: badApps.map(\.0))
    func malformedAppsAre400AndCreateNothing(_ name: String) async throws {
        let (_, body, code) = try #require(Self.badApps.first { $0.0 == name })
        let admin = try Admin()
        let reply = try await admin.call("POST", "/v1/admin/apps", json: body)
        #expect(reply.status == 400, "\(reply.json)")
        #expect(reply.errorCode == code)
        #expect(try admin.harness.store.apps().count == 2)
    }

    @Test func patchChangesIdentityVerificationAndTheRateAndNullResetsTheRate() async throws {
        let admin = try Admin()
        let store = admin.harness.store
        let set = try await admin.call(
            "PATCH", "/v1/admin/apps/main", json: ["identity_verification": "required", "requests_per_second": 50])
        #expect(set.status == 200, "\(set.json)")
        #expect(set.json["identity_verification"] == "required")
        #expect(set.json["requests_per_second"] == 50)
        #expect(try store.app(id: "app_main")?.identityVerification == .required)
        #expect(try store.app(id: "app_main")?.requestsPerSecond == 50)

        // Left out: kept.
        let bundle = try await admin.call("PATCH", "/v1/admin/apps/app_main", json: ["bundle_id": "com.example.new"])
        #expect(bundle.json["identity_verification"] == "required")
        #expect(bundle.json["requests_per_second"] == 50)
        #expect(bundle.json["bundle_id"] == "com.example.new")

        let reset = try await admin.call("PATCH", "/v1/admin/apps/main", json: ["requests_per_second": nil])
        #expect(reset.status == 200)
        #expect(reset.json["requests_per_second"] == .null)
        #expect(reset.json["identity_verification"] == "required")
        let stored = try #require(try store.app(id: "app_main"))
        #expect(stored.requestsPerSecond == nil)
        #expect(stored.identityVerification == .required)
        #expect(stored.bundleID == "com.example.new")
        // The other app is untouched.
        #expect(
            try store.app(id: "app_other")
                == AppRecord(
                    id: "app_other", name: "other", bundleID: "com.example.other",
                    createdAt: admin.harness.now))
    }

    static let badPatches: [(String, JSONValue, String)] = [
        ("mode unknown", ["identity_verification": "sometimes"], "invalid_field"),
        ("mode not a string", ["identity_verification": true], "invalid_field"),
        ("mode null", ["identity_verification": nil], "invalid_field"),
        ("rate zero", ["requests_per_second": 0], "invalid_rate"),
        ("rate negative", ["requests_per_second": -5], "invalid_rate"),
        ("rate too high", ["requests_per_second": 1_000_001], "invalid_rate"),
        ("rate fraction", ["requests_per_second": 1.5], "invalid_field"),
        ("rate string", ["requests_per_second": "10"], "invalid_field"),
        ("bundle malformed", ["bundle_id": "nodots"], "invalid_bundle_id"),
        ("name not patchable", ["name": "renamed"], "invalid_field"),
    ]

    @Test(arguments: badPatches.map(\.0))
    func badPatchesAre400AndChangeNothing(_ name: String) async throws {
        let (_, body, code) = try #require(Self.badPatches.first { $0.0 == name })
        let admin = try Admin()
        let before = try #require(try admin.harness.store.app(id: "app_main"))
        // A valid change alongside the bad one must not be applied either.
        var withValid = try #require(body.objectValue)
        if withValid["identity_verification"] == nil { withValid["identity_verification"] = "optional" }
        let reply = try await admin.call("PATCH", "/v1/admin/apps/main", json: .object(withValid))
        #expect(reply.status == 400, "\(reply.json)")
        #expect(reply.errorCode == code)
        #expect(try admin.harness.store.app(id: "app_main") == before)
        #expect(try await admin.call("PATCH", "/v1/admin/apps/nope", json: [:]).status == 404)
    }

    // MARK: Keys

    @Test(arguments: [APIKeyKind.app, .server])
    func aCreatedKeyShowsItsSecretOnceAndWorks(_ kind: APIKeyKind) async throws {
        let admin = try Admin()
        let harness = admin.harness
        let created = try await admin.call("POST", "/v1/admin/apps/main/keys", json: ["kind": .string(kind.rawValue)])
        #expect(created.status == 201, "\(created.json)")
        let secret = try #require(created.json["secret"]?.stringValue)
        #expect(secret.hasPrefix(kind.prefix))
        #expect(created.json["key"]?["kind"] == .string(kind.rawValue))
        #expect(created.json["key"]?["app_id"] == "app_main")
        #expect(created.json["key"]?["revoked_at"] == .null)
        let hint = try #require(created.json["key"]?["hint"]?.stringValue)
        #expect(secret.hasPrefix(String(hint.dropLast())))
        #expect(hint.count < secret.count)

        // The key works for its app, with its kind's rights.
        let put = try await harness.call("PUT", "/v1/installations/by-new-key", key: secret, json: [:])
        #expect(put.status == 201)
        let list = try await harness.call("GET", "/v1/installations", key: secret)
        #expect(list.status == (kind == .server ? 200 : 403))
        #expect(try harness.store.installation(appID: "app_main", installationID: "by-new-key") != nil)
        #expect(try harness.store.installation(appID: "app_other", installationID: "by-new-key") == nil)
    }

    @Test(arguments: [JSONValue.object(["kind": "admin"]), ["kind": "root"], [:], ["kind": "app", "app": "x"]])
    func aKeyOfABadKindIs400AndMakesNone(_ body: JSONValue) async throws {
        let admin = try Admin()
        let reply = try await admin.call("POST", "/v1/admin/apps/main/keys", json: body)
        #expect(reply.status == 400)
        #expect(reply.errorCode == "invalid_field")
        #expect(try admin.harness.store.keys(appID: nil).count == 5)
        #expect(try await admin.call("POST", "/v1/admin/apps/nope/keys", json: ["kind": "app"]).status == 404)
    }

    @Test func listingKeysNeverShowsASecret() async throws {
        let admin = try Admin()
        let harness = admin.harness
        let created = try await admin.call("POST", "/v1/admin/apps/main/keys", json: ["kind": "server"])
        let secret = try #require(created.json["secret"]?.stringValue)
        let list = try await admin.call("GET", "/v1/admin/apps/main/keys")
        #expect(list.status == 200)
        let keys = try #require(list.json["keys"]?.arrayValue)
        #expect(keys.count == 3)
        #expect(keys.allSatisfy { $0["app_id"] == "app_main" })
        #expect(keys.allSatisfy { $0.objectValue?.keys.contains("secret") == false })
        let body = Self.text(list)
        for known in [secret, harness.appKey, harness.serverKey, admin.adminKey] {
            let kind = try #require(APIKeyKind.allCases.first { known.hasPrefix($0.prefix) })
            // Past the hint (the prefix and four characters) nothing of the secret appears.
            #expect(!body.contains(String(known.prefix(kind.prefix.count + 5))))
        }
        Self.expectOnlyHints(body)
    }

    /// Every `tdg_` string in `body` is a hint: its prefix, four characters, and no more of the key.
    static func expectOnlyHints(_ body: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let base64URL = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var rest = body[...]
        while let range = rest.range(of: "tdg_") {
            let after = rest[range.lowerBound...]
            let afterPrefix = after.dropFirst(8)  // tdg_xxx_
            let secretPart = afterPrefix.prefix { base64URL.contains($0) }
            #expect(secretPart.count <= 4, "\(after.prefix(24))", sourceLocation: sourceLocation)
            rest = rest[range.upperBound...]
        }
    }

    @Test func revokingAKeyMakesIt401RightAway() async throws {
        let admin = try Admin()
        let harness = admin.harness
        let created = try await admin.call("POST", "/v1/admin/apps/main/keys", json: ["kind": "server"])
        let secret = try #require(created.json["secret"]?.stringValue)
        let keyID = try #require(created.json["key"]?["key_id"]?.stringValue)
        #expect(try await harness.call("GET", "/v1/installations", key: secret).status == 200)

        let revoked = try await admin.call("DELETE", "/v1/admin/keys/\(keyID)")
        #expect(revoked.status == 200, "\(revoked.json)")
        #expect(revoked.json["revoked_at"] == .integer(harness.now))
        #expect(revoked.json["key_id"] == .string(keyID))
        let after = try await harness.call("GET", "/v1/installations", key: secret)
        #expect(after.status == 401)
        #expect(after.errorCode == "revoked_key")
        // The app's other keys still work.
        #expect(try await harness.call("GET", "/v1/installations", key: harness.serverKey).status == 200)
        let unknown = try await admin.call("DELETE", "/v1/admin/keys/key_doesnotexist00")
        #expect(unknown.status == 404)
    }

    // MARK: APNs credentials

    static let teamID = "TEAM123456"
    static let keyID = "KEY1234567"

    @Test func apnsCredentialsAreAcceptedAndDescribedButNeverShown() async throws {
        let admin = try Admin()
        let pem = try #require(ES256Key.generate().privateKeyPEM())
        let put = try await admin.call(
            "PUT", "/v1/admin/apps/main/apns",
            json: ["key": .string(pem), "key_id": .string(Self.keyID), "team_id": .string(Self.teamID)])
        #expect(put.status == 200, "\(put.json)")
        #expect(put.json["apns"]?["configured"] == true)
        #expect(!Self.text(put).contains("PRIVATE"))

        let app = try await admin.call("GET", "/v1/admin/apps/main")
        #expect(
            app.json["apns"] == ["configured": true, "key_id": .string(Self.keyID), "team_id": .string(Self.teamID)])
        #expect(app.json["fcm"]?["configured"] == false)
        let body = Self.text(app) + Self.text(try await admin.call("GET", "/v1/admin/apps"))
        #expect(!body.contains("PRIVATE"))
        #expect(!body.contains(String(pem.split(separator: "\n")[1])))
        // The other app has none.
        #expect(try await admin.call("GET", "/v1/admin/apps/other").json["apns"]?["configured"] == false)

        let removed = try await admin.call("DELETE", "/v1/admin/apps/main/apns")
        #expect(removed.status == 200)
        #expect(removed.json["apns"]?["configured"] == false)
        #expect(try await admin.call("DELETE", "/v1/admin/apps/main/apns").status == 404)
    }

    static func badAPNsBodies() -> [(String, JSONValue, String)] {
        let publicKey = ES256Key.generate().publicKeyPEM()
        let privateKey = ES256Key.generate().privateKeyPEM() ?? ""
        let rsa = ServiceAccountFixture.key.privateKeyPEM() ?? ""
        func body(_ key: String, keyID: String = keyID, teamID: String = teamID) -> JSONValue {
            ["key": .string(key), "key_id": .string(keyID), "team_id": .string(teamID)]
        }
        return [
            ("public key", body(publicKey), "invalid_apns_credentials"),
            (
                "garbage", body("-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n"),
                "invalid_apns_credentials"
            ),
            ("not PEM", body("hello"), "invalid_apns_credentials"),
            ("RSA key", body(rsa), "invalid_apns_credentials"),
            ("short key id", body(privateKey, keyID: "KEY"), "invalid_apns_credentials"),
            ("team id with symbol", body(privateKey, teamID: "TEAM12345!"), "invalid_apns_credentials"),
            ("missing team", ["key": .string(privateKey), "key_id": .string(keyID)], "invalid_field"),
            ("empty key", body(""), "invalid_field"),
        ]
    }

    @Test(arguments: badAPNsBodies())
    func badAPNsCredentialsAre400AndStoreNothing(_ name: String, _ body: JSONValue, _ code: String) async throws {
        let admin = try Admin()
        let reply = try await admin.call("PUT", "/v1/admin/apps/main/apns", json: body)
        #expect(reply.status == 400, "\(name): \(reply.json)")
        #expect(reply.errorCode == code)
        #expect(!Self.text(reply).contains("BEGIN"))
        #expect(try await admin.call("GET", "/v1/admin/apps/main").json["apns"]?["configured"] == false)
    }

    @Test func withoutACredentialsDirectoryCredentialRoutesAre503() async throws {
        let admin = try Admin(credentials: false)
        let pem = try #require(ES256Key.generate().privateKeyPEM())
        let apns = try await admin.call(
            "PUT", "/v1/admin/apps/main/apns",
            json: ["key": .string(pem), "key_id": .string(Self.keyID), "team_id": .string(Self.teamID)])
        #expect(apns.status == 503)
        #expect(apns.errorCode == "no_credentials_directory")
        let account = try JSONValue.parse(ServiceAccountFixture.document())
        let fcm = try await admin.call("PUT", "/v1/admin/apps/main/fcm", json: ["service_account": account])
        #expect(fcm.status == 503)
        #expect(fcm.errorCode == "no_credentials_directory")
        for route in ["/v1/admin/apps/main/apns", "/v1/admin/apps/main/fcm"] {
            let delete = try await admin.call("DELETE", route)
            #expect(delete.status == 503)
            #expect(delete.errorCode == "no_credentials_directory")
        }
        // The app itself is still described, as unconfigured.
        let app = try await admin.call("GET", "/v1/admin/apps/main")
        #expect(app.status == 200)
        #expect(app.json["apns"]?["configured"] == false)
    }

    @Test func aCredentialsDirectoryThatCannotBeWrittenIsAServerFailureNotTheCallers() async throws {
        // The data directory's place is taken by a regular file, so nothing can be written under it.
        let file = StoreBackend.root.appendingPathComponent("not-a-directory-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: StoreBackend.root, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: file)
        let harness = try APIHarness { $0.credentialsDirectory = file.appendingPathComponent("credentials") }
        let adminKey = try AppAdministration(store: harness.store).createAdminKey().secret
        let pem = try #require(ES256Key.generate().privateKeyPEM())
        let apns = try await harness.call(
            "PUT", "/v1/admin/apps/main/apns", key: adminKey,
            json: ["key": .string(pem), "key_id": .string(Self.keyID), "team_id": .string(Self.teamID)])
        let fcm = try await harness.call(
            "PUT", "/v1/admin/apps/main/fcm", key: adminKey,
            json: ["service_account": try JSONValue.parse(ServiceAccountFixture.document())])
        #expect(apns.status != 200)
        #expect(fcm.status != 200)
        // Valid credentials the server could not keep: a 5xx like DELETE's `storage_failed`, not a 400 that
        // tells the operator their key or service account is wrong.
        #expect(apns.status == 500, "\(apns.json)")
        #expect(apns.errorCode == "storage_failed")
        #expect(fcm.status == 500, "\(fcm.json)")
        #expect(fcm.errorCode == "storage_failed")
    }

    // MARK: FCM credentials

    @Test func anFCMServiceAccountIsAcceptedAndDescribedButNeverShown() async throws {
        let admin = try Admin()
        let account = try JSONValue.parse(ServiceAccountFixture.document())
        let put = try await admin.call("PUT", "/v1/admin/apps/main/fcm", json: ["service_account": account])
        #expect(put.status == 200, "\(put.json)")
        let app = try await admin.call("GET", "/v1/admin/apps/main")
        #expect(
            app.json["fcm"] == [
                "configured": true, "project_id": "shop-prod", "client_email": "fcm@shop-prod.iam.gserviceaccount.com",
            ])
        #expect(!Self.text(app).contains("PRIVATE"))
        #expect(!Self.text(put).contains("PRIVATE"))
        #expect(!Self.text(app).contains("abc123"), "the private key id stays inside too")

        let removed = try await admin.call("DELETE", "/v1/admin/apps/main/fcm")
        #expect(removed.json["fcm"]?["configured"] == false)
        #expect(try await admin.call("DELETE", "/v1/admin/apps/main/fcm").status == 404)
    }

    @Test(arguments: ["not an object", "no key", "bad key", "no email"])
    func badServiceAccountsAre400AndStoreNothing(_ name: String) async throws {
        let admin = try Admin()
        let account: JSONValue
        switch name {
        case "not an object": account = "service account"
        case "no key": account = try JSONValue.parse(ServiceAccountFixture.document { $0["private_key"] = nil })
        case "bad key":
            account = try JSONValue.parse(ServiceAccountFixture.document { $0["private_key"] = "-----BEGIN x" })
        default: account = try JSONValue.parse(ServiceAccountFixture.document { $0["client_email"] = nil })
        }
        let reply = try await admin.call("PUT", "/v1/admin/apps/main/fcm", json: ["service_account": account])
        #expect(reply.status == 400, "\(reply.json)")
        #expect(reply.errorCode == (name == "not an object" ? "invalid_field" : "invalid_fcm_credentials"))
        #expect(try await admin.call("GET", "/v1/admin/apps/main").json["fcm"]?["configured"] == false)
    }

    // MARK: Identity keys

    @Test func identityKeysAreAddedWithTheirAlgorithmListedAndRemoved() async throws {
        let admin = try Admin()
        let es = ES256Key.generate().publicKeyPEM()
        let rs = ServiceAccountFixture.key.publicKeyPEM()
        let first = try await admin.call(
            "POST", "/v1/admin/apps/main/identity-keys", json: ["key_id": "k1", "public_key": .string(es)])
        #expect(first.status == 201, "\(first.json)")
        #expect(first.json["key_id"] == "k1")
        #expect(first.json["algorithm"] == "ES256")
        #expect(first.json["public_key"]?.stringValue?.contains("BEGIN PUBLIC KEY") == true)
        let second = try await admin.call(
            "POST", "/v1/admin/apps/main/identity-keys", json: ["key_id": "k2", "public_key": .string(rs)])
        #expect(second.status == 201)
        #expect(second.json["algorithm"] == "RS256")

        let list = try await admin.call("GET", "/v1/admin/apps/main/identity-keys")
        #expect(list.json["identity_keys"]?.arrayValue?.compactMap { $0["key_id"]?.stringValue } == ["k1", "k2"])
        #expect(try admin.harness.store.identityKeys(appID: "app_other").isEmpty)
        #expect(
            try await admin.call("GET", "/v1/admin/apps/other/identity-keys").json["identity_keys"] == .array([]))

        let duplicate = try await admin.call(
            "POST", "/v1/admin/apps/main/identity-keys",
            json: ["key_id": "k1", "public_key": .string(ES256Key.generate().publicKeyPEM())])
        #expect(duplicate.status == 409)
        #expect(
            try admin.harness.store.identityKeys(appID: "app_main").first?.publicKeyPEM
                == first.json["public_key"]?.stringValue)

        let deleted = try await admin.call("DELETE", "/v1/admin/apps/main/identity-keys/k1")
        #expect(deleted.status == 204)
        #expect(try admin.harness.store.identityKeys(appID: "app_main").map(\.keyID) == ["k2"])
        let again = try await admin.call("DELETE", "/v1/admin/apps/main/identity-keys/k1")
        #expect(again.status == 404)
        #expect(again.errorCode == "not_found")
        // The same key id of another app is its own.
        #expect(try await admin.call("DELETE", "/v1/admin/apps/other/identity-keys/k2").status == 404)
        #expect(try admin.harness.store.identityKeys(appID: "app_main").map(\.keyID) == ["k2"])
    }

    /// Public keys of kinds identity tokens may not use (made with `openssl genpkey … | openssl pkey -pubout`).
    static let p384PublicKey = """
        -----BEGIN PUBLIC KEY-----
        MHYwEAYHKoZIzj0CAQYFK4EEACIDYgAEP+ADiFeMzaP9y8qS1EOOo7vfzkQBNXRo
        Jp+rG+6gvHixAxAhhMFjaikhpFivWTHHyx/7nEnTq5ERSU06eN/DrdhqqFurtlcU
        eVMmbrfJAiXBaX7BFprUDm2iBaJHM99z
        -----END PUBLIC KEY-----

        """
    static let rsa1024PublicKey = """
        -----BEGIN PUBLIC KEY-----
        MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQDQzriKcIEt4B5Vcci9CjE4wcwC
        x1CKi6PT6FQ4FT/V9G8a/oEuy1lp8WWeHJHW9WmKSMUElOIgxL9yb/dRXbju7iem
        CH1tTTRaInEtN1Im3zRrWpavtJfp6bNwLc/KW6aVdSOy0ZzXp+AKM9KJeeOgQkIY
        QYUCpCl73f4Nd69aNQIDAQAB
        -----END PUBLIC KEY-----

        """
    static let ed25519PublicKey = """
        -----BEGIN PUBLIC KEY-----
        MCowBQYDK2VwAyEAVXgiujPibW/zlwDRw+dbfRcfoRGuAlpy4Sl3qvP94Gk=
        -----END PUBLIC KEY-----

        """

    static func badIdentityKeys() -> [(String, JSONValue, String)] {
        let es = ES256Key.generate()
        return [
            ("EC private key", ["key_id": "k1", "public_key": .string(es.privateKeyPEM() ?? "")], "invalid_key"),
            (
                "RSA private key",
                ["key_id": "k1", "public_key": .string(ServiceAccountFixture.key.privateKeyPEM() ?? "")],
                "invalid_key"
            ),
            (
                "garbage", ["key_id": "k1", "public_key": "-----BEGIN PUBLIC KEY-----\nxx\n-----END PUBLIC KEY-----"],
                "invalid_key"
            ),
            ("P-384 key", ["key_id": "k1", "public_key": .string(p384PublicKey)], "invalid_key"),
            ("RSA 1024", ["key_id": "k1", "public_key": .string(rsa1024PublicKey)], "invalid_key"),
            ("Ed25519 key", ["key_id": "k1", "public_key": .string(ed25519PublicKey)], "invalid_key"),
            ("bad key id", ["key_id": "has space", "public_key": .string(es.publicKeyPEM())], "invalid_key_id"),
            ("missing key", ["key_id": "k1"], "invalid_field"),
            ("unknown field", ["key_id": "k1", "public_key": .string(es.publicKeyPEM()), "x": 1], "invalid_field"),
        ]
    }

    @Test(arguments: badIdentityKeys())
    func badIdentityKeysAre400AndStoreNothing(_ name: String, _ body: JSONValue, _ code: String) async throws {
        let admin = try Admin()
        let reply = try await admin.call("POST", "/v1/admin/apps/main/identity-keys", json: body)
        #expect(reply.status == 400, "\(name): \(reply.json)")
        #expect(reply.errorCode == code)
        #expect(!Self.text(reply).contains("BEGIN"))
        #expect(try admin.harness.store.identityKeys(appID: "app_main").isEmpty)
    }

    // MARK: Caches

    @Test func changesBiteAtOnceEvenWithTheAPIsCaches() async throws {
        let harness = try APIHarness { $0.keyCacheSeconds = 60 }
        let adminKey = try AppAdministration(store: harness.store).createAdminKey().secret
        func admin(_ method: String, _ path: String, _ json: JSONValue? = nil) async throws -> APIHarness.Reply {
            try await harness.call(method, path, key: adminKey, json: json)
        }

        // A revoked key, looked up (and cached) just before.
        let created = try await admin("POST", "/v1/admin/apps/main/keys", ["kind": "server"])
        let secret = try #require(created.json["secret"]?.stringValue)
        let keyID = try #require(created.json["key"]?["key_id"]?.stringValue)
        #expect(try await harness.call("GET", "/v1/installations", key: secret).status == 200)
        #expect(try await admin("DELETE", "/v1/admin/keys/\(keyID)").status == 200)
        #expect(try await harness.call("GET", "/v1/installations", key: secret).errorCode == "revoked_key")

        // A new rate for the app, whose settings were cached by the requests before.
        #expect(try await harness.call("GET", "/v1/installations", key: harness.serverKey).status == 200)
        #expect(try await admin("PATCH", "/v1/admin/apps/main", ["requests_per_second": 1]).status == 200)
        for _ in 1...2 {
            #expect(try await harness.call("GET", "/v1/installations", key: harness.serverKey).status == 200)
        }
        let limited = try await harness.call("GET", "/v1/installations", key: harness.serverKey)
        #expect(limited.status == 429)
        #expect(limited.errorMessage.contains("1 per second (burst 2)"))
        #expect(try await admin("PATCH", "/v1/admin/apps/main", ["requests_per_second": nil]).status == 200)

        // Identity verification switched on, a key added and then removed.
        try await harness.register("inst-1")
        #expect(try await admin("PATCH", "/v1/admin/apps/main", ["identity_verification": "required"]).status == 200)
        let unverified = try await harness.call(
            "PUT", "/v1/installations/inst-1", key: harness.appKey, json: ["user_id": "alice"])
        #expect(unverified.status == 401)
        #expect(unverified.errorCode == "identity_token_required")

        let signingKey = ES256Key.generate()
        let signer = JWTSigner(key: signingKey, keyID: "k1")
        let token = try signer.sign(subject: "alice", audience: "app_main", issuedAt: harness.clock.now)
        // Before its key is registered the token is refused, and the app's (empty) key set is cached.
        let early = try await harness.call(
            "PUT", "/v1/installations/inst-1", key: harness.appKey, json: ["user_id": "alice"],
            headers: [("X-Tidings-User-Token", token)])
        #expect(early.status == 401)
        #expect(early.errorCode == "identity_token_invalid")
        let added = try await admin(
            "POST", "/v1/admin/apps/main/identity-keys",
            ["key_id": "k1", "public_key": .string(signingKey.publicKeyPEM())])
        #expect(added.status == 201)
        let verified = try await harness.call(
            "PUT", "/v1/installations/inst-1", key: harness.appKey, json: ["user_id": "alice"],
            headers: [("X-Tidings-User-Token", token)])
        #expect(verified.status == 200, "\(verified.json)")
        #expect(verified.json["user_id"] == "alice")

        // Rotation: a second key, then the first one goes; tokens it signed stop working at once.
        let second = try await admin(
            "POST", "/v1/admin/apps/main/identity-keys",
            ["key_id": "k2", "public_key": .string(ES256Key.generate().publicKeyPEM())])
        #expect(second.status == 201)
        #expect(try await admin("DELETE", "/v1/admin/apps/main/identity-keys/k1").status == 204)
        let afterRemoval = try await harness.call(
            "PUT", "/v1/installations/inst-1", key: harness.appKey, json: ["user_id": nil],
            headers: [("X-Tidings-User-Token", token)])
        #expect(afterRemoval.status == 401, "\(afterRemoval.json)")
        #expect(afterRemoval.errorCode == "identity_token_invalid")
        #expect(try harness.store.installation(appID: "app_main", installationID: "inst-1")?.userID == "alice")
    }
}
