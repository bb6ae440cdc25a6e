import Foundation
import Testing
import TidingsCrypto
import TidingsModel
import TidingsStore
import TidingsStoreTesting

/// The behaviour every ``Store`` backend must have; each test runs once per backend.
@Suite struct StoreTests {
    static let now: Int64 = 1_800_000_000_000

    /// A key as the server issues one: a random secret, of which the store keeps only the digest.
    func issueKey(appID: String, kind: APIKeyKind) -> (secret: String, record: APIKeyRecord) {
        let secret = kind.prefix + Base64URL.encode(SecureRandom.bytes(32))
        let record = APIKeyRecord(
            id: "key_" + SHA256Digest.hex(SecureRandom.bytes(8)), appID: appID, kind: kind,
            hash: SHA256Digest.hash(secret), hint: String(secret.prefix(12)) + "…", createdAt: Self.now)
        return (secret, record)
    }

    func makeStore(_ backend: StoreBackend, apps: [String] = ["app_a", "app_b"]) throws -> any Store {
        let store = try backend.makeStore()
        for (offset, id) in apps.enumerated() {
            try store.createApp(
                AppRecord(
                    id: id, name: "name-\(id)", bundleID: "com.example.\(id)", createdAt: Self.now + Int64(offset)))
        }
        return store
    }

    func token(_ seed: Int) -> String {
        String(repeating: String(format: "%02x", seed % 256), count: 32)
    }

    // MARK: Apps and keys

    @Test(arguments: StoreBackend.allCases)
    func appsAreListedInCreationOrderAndNamesAreUnique(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        #expect(try store.apps().map(\.id) == ["app_a", "app_b"])
        #expect(try store.app(named: "name-app_b")?.bundleID == "com.example.app_b")
        #expect(try store.app(id: "app_missing") == nil)
        let error = #expect(throws: StoreError.self) {
            try store.createApp(AppRecord(id: "app_c", name: "name-app_a", bundleID: "x", createdAt: 0))
        }
        #expect(error?.code == .conflict)
    }

    @Test(arguments: StoreBackend.allCases)
    func keysAreFoundByDigestAndRevocationKeepsTheFirstTime(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        let issued = issueKey(appID: "app_a", kind: .server)
        try store.createKey(issued.record)
        #expect(try store.key(hash: SHA256Digest.hash(issued.secret)) == issued.record)
        #expect(try store.key(hash: SHA256Digest.hash("tdg_srv_other")) == nil)
        #expect(try store.keys(appID: "app_a").map(\.id) == [issued.record.id])
        #expect(try store.keys(appID: "app_b").isEmpty)
        #expect(try store.keys(appID: nil).count == 1)

        let revoked = try store.revokeKey(id: issued.record.id, at: Self.now + 5)
        #expect(revoked.revokedAt == Self.now + 5)
        let again = try store.revokeKey(id: issued.record.id, at: Self.now + 9)
        #expect(again.revokedAt == Self.now + 5)
        #expect(try store.key(hash: issued.record.hash)?.isRevoked == true)
    }

    @Test(arguments: StoreBackend.allCases)
    func keysNeedAnExistingAppAndRevokingAnUnknownKeyFails(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        let orphan = issueKey(appID: "app_missing", kind: .app)
        #expect(throws: StoreError(code: .notFound, message: "there is no app app_missing")) {
            try store.createKey(orphan.record)
        }
        let error = #expect(throws: StoreError.self) { try store.revokeKey(id: "key_missing", at: Self.now) }
        #expect(error?.code == .notFound)
    }

    @Test(arguments: StoreBackend.allCases)
    func adminKeysBelongToNoAppAndAreFoundListedAndRevoked(_ backend: StoreBackend) throws {
        let store = try makeStore(backend, apps: [])
        let admin = issueKey(appID: "", kind: .admin)
        try store.createKey(admin.record)
        #expect(try store.key(hash: SHA256Digest.hash(admin.secret)) == admin.record)
        #expect(try store.keys(appID: nil) == [admin.record])
        try store.createApp(AppRecord(id: "app_a", name: "a", bundleID: "com.example.a", createdAt: Self.now))
        let app = issueKey(appID: "app_a", kind: .app)
        try store.createKey(app.record)
        #expect(try store.keys(appID: "app_a") == [app.record])
        #expect(Set(try store.keys(appID: nil)) == [admin.record, app.record])

        let revoked = try store.revokeKey(id: admin.record.id, at: Self.now + 1)
        #expect(revoked.revokedAt == Self.now + 1)
        #expect(revoked.kind == .admin)
        #expect(revoked.appID == "")
        #expect(try store.key(hash: admin.record.hash)?.isRevoked == true)
        #expect(try store.key(hash: app.record.hash)?.isRevoked == false)
    }

    @Test(arguments: StoreBackend.allCases)
    func onlyAdminKeysMayGoWithoutAnApp(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        for kind in [APIKeyKind.app, .server] {
            let error = #expect(throws: StoreError.self) { try store.createKey(issueKey(appID: "", kind: kind).record) }
            #expect(error?.code == .notFound)
        }
        #expect(try store.keys(appID: nil).isEmpty)
    }

    @Test(arguments: StoreBackend.allCases)
    func updateAppChangesItsSettingsButNotItsIdentity(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        var app = try #require(try store.app(id: "app_a"))
        #expect(app.identityVerification == .off)
        #expect(app.requestsPerSecond == nil)
        app.bundleID = "com.example.changed"
        app.identityVerification = .required
        app.requestsPerSecond = 25
        try store.updateApp(app)
        #expect(try store.app(id: "app_a") == app)
        #expect(try store.app(named: "name-app_a") == app)
        #expect(try store.apps().map(\.id) == ["app_a", "app_b"])
        #expect(try store.app(id: "app_b")?.identityVerification == .off)

        app.requestsPerSecond = nil
        app.identityVerification = .optional
        try store.updateApp(app)
        #expect(try store.app(id: "app_a")?.requestsPerSecond == nil)
        #expect(try store.app(id: "app_a")?.identityVerification == .optional)

        // Its name and creation stay.
        var renamed = app
        renamed.name = "renamed"
        renamed.createdAt = 1
        try store.updateApp(renamed)
        #expect(try store.app(id: "app_a") == app)
        #expect(try store.app(named: "renamed") == nil)

        let missing = #expect(throws: StoreError.self) {
            try store.updateApp(AppRecord(id: "app_missing", name: "x", bundleID: "com.example.x", createdAt: 0))
        }
        #expect(missing?.code == .notFound)
        #expect(try store.app(id: "app_missing") == nil)
    }

    // MARK: Identity keys

    func identityKey(_ appID: String, _ keyID: String, at offset: Int64 = 0) -> IdentityKeyRecord {
        IdentityKeyRecord(
            appID: appID, keyID: keyID, algorithm: keyID.hasPrefix("rs") ? .rs256 : .es256,
            publicKeyPEM: "-----BEGIN PUBLIC KEY-----\n\(keyID)\n-----END PUBLIC KEY-----\n",
            createdAt: Self.now + offset)
    }

    @Test(arguments: StoreBackend.allCases)
    func identityKeysAreAddedListedOldestFirstAndRemovedPerApp(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        try store.addIdentityKey(identityKey("app_a", "es-2", at: 2))
        try store.addIdentityKey(identityKey("app_a", "rs-1", at: 1))
        try store.addIdentityKey(identityKey("app_b", "es-2"))
        #expect(
            try store.identityKeys(appID: "app_a") == [
                identityKey("app_a", "rs-1", at: 1), identityKey("app_a", "es-2", at: 2),
            ])
        #expect(try store.identityKeys(appID: "app_b") == [identityKey("app_b", "es-2")])
        #expect(try store.identityKeys(appID: "app_missing").isEmpty)

        let conflict = #expect(throws: StoreError.self) {
            try store.addIdentityKey(identityKey("app_a", "es-2", at: 9))
        }
        #expect(conflict?.code == .conflict)
        #expect(try store.identityKeys(appID: "app_a").count == 2)
        let unknownApp = #expect(throws: StoreError.self) { try store.addIdentityKey(identityKey("app_missing", "k")) }
        #expect(unknownApp?.code == .notFound)

        #expect(try store.removeIdentityKey(appID: "app_a", keyID: "es-2"))
        #expect(try !store.removeIdentityKey(appID: "app_a", keyID: "es-2"))
        #expect(try !store.removeIdentityKey(appID: "app_a", keyID: "never"))
        #expect(try store.identityKeys(appID: "app_a").map(\.keyID) == ["rs-1"])
        #expect(try store.identityKeys(appID: "app_b").map(\.keyID) == ["es-2"], "the other app's key of that id stays")
        // A removed id may be added again.
        try store.addIdentityKey(identityKey("app_a", "es-2", at: 3))
        #expect(try store.identityKeys(appID: "app_a").map(\.keyID) == ["rs-1", "es-2"])
    }

    // MARK: Instances

    @Test(arguments: StoreBackend.allCases)
    func heartbeatsAreRecordedAgainAndAgain(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        try store.recordHeartbeat(instanceID: "instance-1", now: Self.now)
        try store.recordHeartbeat(instanceID: "instance-1", now: Self.now + 1000)
        try store.recordHeartbeat(instanceID: "instance-2", now: Self.now)
        // An older beat (a clock stepping back) is taken too: it is a liveness write, not a history.
        try store.recordHeartbeat(instanceID: "instance-1", now: Self.now - 1000)
    }

    // MARK: Installations

    @Test(arguments: StoreBackend.allCases)
    func upsertCreatesThenChangesOnlyWhatTheUpdateNames(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        var update = InstallationUpdate()
        update.apnsToken = .set(token(1))
        update.userID = .set("user-1")
        update.timezone = .set("Asia/Tokyo")
        update.consentAds = .set(true)
        let first = try store.upsertInstallation(appID: "app_a", installationID: "i1", update: update, now: Self.now)
        #expect(first.created)
        #expect(first.installation.platform == "ios")
        #expect(first.installation.consents == Installation.Consents(notifications: nil, ads: true, nightAds: nil))

        var change = InstallationUpdate()
        change.locale = .set("ja_JP")
        change.timezone = .set(nil)
        let second = try store.upsertInstallation(
            appID: "app_a", installationID: "i1", update: change, now: Self.now + 10)
        #expect(!second.created)
        #expect(second.installation.apnsToken == token(1))
        #expect(second.installation.userID == "user-1")
        #expect(second.installation.locale == "ja_JP")
        #expect(second.installation.timezone == nil)
        #expect(second.installation.createdAt == Self.now)
        #expect(second.installation.updatedAt == Self.now + 10)
        #expect(try store.installation(appID: "app_a", installationID: "i1") == second.installation)
        #expect(try store.installation(appID: "app_b", installationID: "i1") == nil)
    }

    @Test(arguments: StoreBackend.allCases)
    func aTokenMovesToTheInstallationThatRegistersItLast(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        var update = InstallationUpdate()
        update.apnsToken = .set(token(7))
        update.voipToken = .set(token(8))
        _ = try store.upsertInstallation(appID: "app_a", installationID: "old", update: update, now: Self.now)
        _ = try store.upsertInstallation(appID: "app_b", installationID: "other-app", update: update, now: Self.now)
        var moving = InstallationUpdate()
        moving.apnsToken = .set(token(7))
        _ = try store.upsertInstallation(appID: "app_a", installationID: "new", update: moving, now: Self.now + 1)

        let old = try #require(try store.installation(appID: "app_a", installationID: "old"))
        #expect(old.apnsToken == nil)
        #expect(old.voipToken == token(8))
        #expect(try store.installation(appID: "app_a", installationID: "new")?.apnsToken == token(7))
        #expect(try store.installation(appID: "app_b", installationID: "other-app")?.apnsToken == token(7))
    }

    @Test(arguments: StoreBackend.allCases)
    func loggingOutKeepsTheTokenAndRemovingATokenKeepsTheRest(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        var update = InstallationUpdate()
        update.apnsToken = .set(token(3))
        update.fcmToken = .set("fcm-token")
        update.userID = .set("user-9")
        _ = try store.upsertInstallation(appID: "app_a", installationID: "i", update: update, now: Self.now)
        var logout = InstallationUpdate()
        logout.userID = .set(nil)
        let out = try store.upsertInstallation(appID: "app_a", installationID: "i", update: logout, now: Self.now)
        #expect(out.installation.userID == nil)
        #expect(out.installation.apnsToken == token(3))

        let removed = try store.removeToken(.apns, appID: "app_a", installationID: "i", now: Self.now + 1)
        #expect(removed?.apnsToken == nil)
        #expect(removed?.fcmToken == "fcm-token")
        #expect(try store.removeToken(.apns, appID: "app_b", installationID: "i", now: Self.now) == nil)
    }

    @Test(arguments: StoreBackend.allCases)
    func installationsAreListedByUserAndTagAndPaged(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        for index in 0..<5 {
            var update = InstallationUpdate()
            update.userID = .set(index < 3 ? "u1" : "u2")
            _ = try store.upsertInstallation(appID: "app_a", installationID: "i\(index)", update: update, now: Self.now)
        }
        _ = try store.upsertInstallation(appID: "app_b", installationID: "b0", update: .init(), now: Self.now)
        _ = try store.addTags(appID: "app_a", userID: "u2", tags: ["vip"], limits: .default)

        #expect(
            try store.installations(appID: "app_a", query: .init()).map(\.installationID) == [
                "i0", "i1", "i2", "i3", "i4",
            ])
        #expect(try store.installations(appID: "app_a", query: .init(userID: "u1")).count == 3)
        #expect(
            try store.installations(appID: "app_a", query: .init(tag: "vip")).map(\.installationID) == ["i3", "i4"])
        let page = try store.installations(appID: "app_a", query: .init(afterInstallationID: "i1", limit: 2))
        #expect(page.map(\.installationID) == ["i2", "i3"])
    }

    @Test(arguments: StoreBackend.allCases)
    func tokenRegistrationTimesFollowWhenATokenIsSetPresentedAgainAndRemoved(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        func upsert(_ at: Int64, _ change: (inout InstallationUpdate) -> Void) throws -> Installation {
            var update = InstallationUpdate()
            change(&update)
            return try store.upsertInstallation(appID: "app_a", installationID: "i", update: update, now: at)
                .installation
        }
        let created = try upsert(Self.now) { $0.apnsToken = .set(token(1)) }
        #expect(created.tokenRegisteredAt == [.apns: Self.now])
        // Another field changing does not move it.
        #expect(try upsert(Self.now + 10) { $0.locale = .set("ja_JP") }.tokenRegisteredAt == [.apns: Self.now])
        // The device presenting the same token again does.
        #expect(try upsert(Self.now + 20) { $0.apnsToken = .set(token(1)) }.tokenRegisteredAt == [.apns: Self.now + 20])
        let both = try upsert(Self.now + 30) { $0.fcmToken = .set("fcm-1") }
        #expect(both.tokenRegisteredAt == [.apns: Self.now + 20, .fcm: Self.now + 30])
        // A new token is registered now.
        #expect(try upsert(Self.now + 40) { $0.apnsToken = .set(token(2)) }.tokenRegisteredAt[.apns] == Self.now + 40)
        // Cleared with the token, by an update or by removal; the other token keeps its time.
        #expect(try upsert(Self.now + 50) { $0.apnsToken = .set(nil) }.tokenRegisteredAt == [.fcm: Self.now + 30])
        let removed = try store.removeToken(.fcm, appID: "app_a", installationID: "i", now: Self.now + 60)
        #expect(removed?.tokenRegisteredAt == [:])
        #expect(try store.installation(appID: "app_a", installationID: "i")?.tokenRegisteredAt == [:])
        #expect(try upsert(Self.now + 70) { $0.voipToken = .set(token(3)) }.tokenRegisteredAt == [.voip: Self.now + 70])
        #expect(
            try store.installation(appID: "app_a", installationID: "i")?.tokenRegisteredAt == [.voip: Self.now + 70])
    }

    @Test(arguments: StoreBackend.allCases)
    func aTokenTakenByAnotherInstallationLeavesTheOldOneWithoutItsRegistration(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        var update = InstallationUpdate()
        update.apnsToken = .set(token(4))
        update.fcmToken = .set("fcm-old")
        _ = try store.upsertInstallation(appID: "app_a", installationID: "old", update: update, now: Self.now)
        var moving = InstallationUpdate()
        moving.apnsToken = .set(token(4))
        let new = try store.upsertInstallation(
            appID: "app_a", installationID: "new", update: moving, now: Self.now + 5)
        #expect(new.installation.tokenRegisteredAt == [.apns: Self.now + 5])
        let old = try #require(try store.installation(appID: "app_a", installationID: "old"))
        #expect(old.apnsToken == nil)
        #expect(old.tokenRegisteredAt == [.fcm: Self.now])
    }

    /// (when the token was last registered, the provider's invalid-since, whether it is cleared); times are
    /// offsets from `now`, and a nil invalid-since clears whenever the token is held.
    static let deactivations: [(Int64, Int64?, Bool)] = [
        (0, 1, true), (0, 1000, true), (10, 5, false), (10, 10, false), (10, nil, true), (0, nil, true),
    ]

    @Test(arguments: StoreBackend.allCases, deactivations)
    func deactivatingATokenClearsItOnlyWhenNotPresentedSinceItWentInvalid(
        _ backend: StoreBackend, _ deactivation: (Int64, Int64?, Bool)
    ) throws {
        let (registeredAt, invalidSince, cleared) = deactivation
        let store = try makeStore(backend)
        var update = InstallationUpdate()
        update.apnsToken = .set(token(1))
        update.fcmToken = .set("fcm-1")
        _ = try store.upsertInstallation(
            appID: "app_a", installationID: "i", update: update, now: Self.now + registeredAt)
        let result = try store.deactivateToken(
            .apns, token: token(1), appID: "app_a", installationID: "i",
            invalidSince: invalidSince.map { Self.now + $0 },
            now: Self.now + 2000)
        #expect(result == cleared)
        let stored = try #require(try store.installation(appID: "app_a", installationID: "i"))
        #expect(stored.apnsToken == (cleared ? nil : token(1)))
        #expect(stored.tokenRegisteredAt[.apns] == (cleared ? nil : Self.now + registeredAt))
        #expect(stored.fcmToken == "fcm-1", "only the named token")
        #expect(stored.tokenRegisteredAt[.fcm] == Self.now + registeredAt)
        #expect(stored.updatedAt == (cleared ? Self.now + 2000 : Self.now + registeredAt))
    }

    @Test(arguments: StoreBackend.allCases)
    func deactivatingNeverClearsAnotherInstallationsOrAnotherKindsToken(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        var update = InstallationUpdate()
        update.apnsToken = .set(token(1))
        _ = try store.upsertInstallation(appID: "app_a", installationID: "holder", update: update, now: Self.now)
        _ = try store.upsertInstallation(appID: "app_b", installationID: "holder", update: update, now: Self.now)
        var other = InstallationUpdate()
        other.apnsToken = .set(token(2))
        _ = try store.upsertInstallation(appID: "app_a", installationID: "other", update: other, now: Self.now)

        for invalidSince in [nil, Self.now + 1] as [Int64?] {
            // The token is not this installation's.
            #expect(
                try !store.deactivateToken(
                    .apns, token: token(1), appID: "app_a", installationID: "other", invalidSince: invalidSince,
                    now: Self.now + 2))
            // Nor this kind's, nor this app's installation.
            #expect(
                try !store.deactivateToken(
                    .fcm, token: token(1), appID: "app_a", installationID: "holder", invalidSince: invalidSince,
                    now: Self.now + 2))
            #expect(
                try !store.deactivateToken(
                    .apns, token: token(1), appID: "app_a", installationID: "missing", invalidSince: invalidSince,
                    now: Self.now + 2))
            // A token the installation no longer holds.
            #expect(
                try !store.deactivateToken(
                    .apns, token: token(9), appID: "app_a", installationID: "holder", invalidSince: invalidSince,
                    now: Self.now + 2))
        }
        #expect(try store.installation(appID: "app_a", installationID: "holder")?.apnsToken == token(1))
        #expect(try store.installation(appID: "app_a", installationID: "other")?.apnsToken == token(2))

        #expect(
            try store.deactivateToken(
                .apns, token: token(1), appID: "app_a", installationID: "holder", invalidSince: nil, now: Self.now + 3))
        #expect(try store.installation(appID: "app_a", installationID: "holder")?.apnsToken == nil)
        #expect(try store.installation(appID: "app_b", installationID: "holder")?.apnsToken == token(1))
        #expect(try store.installation(appID: "app_a", installationID: "other")?.apnsToken == token(2))
    }

    struct Refused: Error {}

    @Test(arguments: StoreBackend.allCases)
    func prepareSeesTheStoredInstallationAndAThrowingPrepareChangesNothing(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        var seen: [Installation?] = []
        let first = try store.upsertInstallation(appID: "app_a", installationID: "i", now: Self.now) { existing in
            seen.append(existing)
            var update = InstallationUpdate()
            update.apnsToken = .set(token(1))
            update.userID = .set("alice")
            return update
        }
        #expect(first.created)
        #expect(seen.allSatisfy { $0 == nil })
        seen = []
        let second = try store.upsertInstallation(appID: "app_a", installationID: "i", now: Self.now + 1) { existing in
            seen.append(existing)
            var update = InstallationUpdate()
            update.locale = .set(existing?.userID == "alice" ? "seen-alice" : "missed")
            return update
        }
        #expect(!second.created)
        #expect(!seen.isEmpty)
        #expect(seen.allSatisfy { $0 == first.installation })
        #expect(second.installation.locale == "seen-alice")

        var other = InstallationUpdate()
        other.apnsToken = .set(token(2))
        _ = try store.upsertInstallation(appID: "app_a", installationID: "j", update: other, now: Self.now)
        let before = try store.installations(appID: "app_a", query: .init())

        // A refused change: neither the installation, nor the one whose token it would take, nor a new one.
        #expect(throws: Refused.self) {
            try store.upsertInstallation(appID: "app_a", installationID: "i", now: Self.now + 2) { _ in
                throw Refused()
            }
        }
        #expect(throws: Refused.self) {
            try store.upsertInstallation(appID: "app_a", installationID: "new", now: Self.now + 2) { existing in
                #expect(existing == nil)
                throw Refused()
            }
        }
        #expect(try store.installations(appID: "app_a", query: .init()) == before)
        #expect(try store.installation(appID: "app_a", installationID: "new") == nil)
        #expect(try store.installation(appID: "app_a", installationID: "j")?.apnsToken == token(2))
    }

    @Test(arguments: StoreBackend.allCases)
    func theSecretDigestRoundTripsAndIsKeptByLaterUpdates(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        let digest = SHA256Digest.hash("tdg_ins_secret")
        var update = InstallationUpdate()
        update.secretDigest = .set(digest)
        let created = try store.upsertInstallation(appID: "app_a", installationID: "i", update: update, now: Self.now)
        #expect(created.installation.secretDigest == digest)
        #expect(try store.installation(appID: "app_a", installationID: "i")?.secretDigest == digest)
        var change = InstallationUpdate()
        change.userID = .set("u")
        _ = try store.upsertInstallation(appID: "app_a", installationID: "i", update: change, now: Self.now + 1)
        #expect(try store.installation(appID: "app_a", installationID: "i")?.secretDigest == digest)
        #expect(try store.installations(appID: "app_a", query: .init()).first?.secretDigest == digest)
        #expect(
            try store.upsertInstallation(appID: "app_a", installationID: "none", update: .init(), now: Self.now)
                .installation.secretDigest == nil)
        #expect(try store.installation(appID: "app_a", installationID: "none")?.secretDigest == nil)
    }

    /// (field, value, installations it finds; nil finds those where the field is unknown)
    static let fieldFilters: [(InstallationQuery.Field, String?, [String])] = [
        (.language, "ja-JP", ["i0"]), (.language, nil, ["i2"]), (.osName, "iOS", ["i0", "i1"]),
        (.timezone, nil, ["i1", "i2"]), (.timezone, "Asia/Tokyo", ["i0"]), (.appBuild, "42", ["i1"]),
        (.deviceModel, "iPhone16,2", []), (.country, "JP", ["i0", "i1"]), (.platform, "android", ["i2"]),
    ]

    @Test(arguments: StoreBackend.allCases, fieldFilters)
    func installationsAreFilteredByDeviceFields(
        _ backend: StoreBackend, _ filter: (InstallationQuery.Field, String?, [String])
    ) throws {
        let (field, value, expected) = filter
        let store = try makeStore(backend)
        var first = InstallationUpdate()
        first.language = .set("ja-JP")
        first.osName = .set("iOS")
        first.timezone = .set("Asia/Tokyo")
        first.country = .set("JP")
        var second = InstallationUpdate()
        second.language = .set("en-US")
        second.osName = .set("iOS")
        second.appBuild = .set("42")
        second.country = .set("JP")
        var third = InstallationUpdate()
        third.platform = .set("android")
        for (id, update) in [("i0", first), ("i1", second), ("i2", third)] {
            _ = try store.upsertInstallation(appID: "app_a", installationID: id, update: update, now: Self.now)
            _ = try store.upsertInstallation(appID: "app_b", installationID: "b-\(id)", update: update, now: Self.now)
        }
        let found = try store.installations(appID: "app_a", query: .init(fields: [field: value]))
        #expect(found.map(\.installationID) == expected)
        // Filters combine with each other and with the user.
        var fields: [InstallationQuery.Field: String?] = [.country: "JP"]
        fields[field] = .some(value)
        let both = try store.installations(appID: "app_a", query: .init(fields: fields))
        #expect(both.map(\.installationID) == (field == .country ? expected : expected.filter { $0 != "i2" }))
        #expect(try store.installations(appID: "app_a", query: .init(userID: "nobody", fields: [field: value])).isEmpty)
    }

    @Test(arguments: StoreBackend.allCases)
    func installationsAreReadTogetherByTheirIDsWithinTheirAppOnly(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        for id in ["i1", "i2", "i3", "shared"] {
            var update = InstallationUpdate()
            update.locale = .set("a-\(id)")
            _ = try store.upsertInstallation(appID: "app_a", installationID: id, update: update, now: Self.now)
        }
        var other = InstallationUpdate()
        other.locale = .set("b-shared")
        _ = try store.upsertInstallation(appID: "app_b", installationID: "shared", update: other, now: Self.now)
        _ = try store.upsertInstallation(appID: "app_b", installationID: "only-b", update: .init(), now: Self.now)

        let found = try store.installations(
            appID: "app_a", installationIDs: ["i3", "missing", "i1", "shared", "only-b"])
        // The unknown and the other app's are left out; each found one is the app's own, read whole.
        #expect(Set(found.map(\.installationID)) == ["i1", "i3", "shared"])
        #expect(found.count == 3)
        #expect(found.allSatisfy { $0.appID == "app_a" && $0.locale == "a-\($0.installationID)" })
        #expect(try store.installations(appID: "app_a", installationIDs: []).isEmpty)
        // More than a chunk's worth in one call, found ones spread over all of it.
        let many = (0..<1_100).map { "n\($0)" }
        let existing = Set(many.enumerated().filter { $0.offset % 3 == 0 }.map(\.element))
        for id in existing {
            _ = try store.upsertInstallation(appID: "app_b", installationID: id, update: .init(), now: Self.now)
        }
        let manyFound = try store.installations(appID: "app_b", installationIDs: many)
        #expect(Set(manyFound.map(\.installationID)) == existing)
        #expect(manyFound.count == existing.count)
    }

    @Test(arguments: StoreBackend.allCases)
    func installationsWithoutATimeZoneAreCountedByApp(_ backend: StoreBackend) throws {
        let store = try makeStore(backend, apps: ["app_a", "app_b", "app_c"])
        #expect(try store.installationsWithoutTimeZone() == [:])
        var zoned = InstallationUpdate()
        zoned.timezone = .set("Asia/Tokyo")
        for id in ["a1", "a2", "a3"] {
            _ = try store.upsertInstallation(appID: "app_a", installationID: id, update: .init(), now: Self.now)
        }
        _ = try store.upsertInstallation(appID: "app_a", installationID: "a4", update: zoned, now: Self.now)
        _ = try store.upsertInstallation(appID: "app_b", installationID: "b1", update: .init(), now: Self.now)
        _ = try store.upsertInstallation(appID: "app_c", installationID: "c1", update: zoned, now: Self.now)
        #expect(try store.installationsWithoutTimeZone() == ["app_a": 3, "app_b": 1])
        // Learning a zone takes an installation off the count; losing it puts it back.
        _ = try store.upsertInstallation(appID: "app_a", installationID: "a1", update: zoned, now: Self.now)
        var unzoned = InstallationUpdate()
        unzoned.timezone = .set(nil)
        _ = try store.upsertInstallation(appID: "app_c", installationID: "c1", update: unzoned, now: Self.now)
        #expect(try store.installationsWithoutTimeZone() == ["app_a": 2, "app_b": 1, "app_c": 1])
    }

    // MARK: Tags

    @Test(arguments: StoreBackend.allCases)
    func tagsAreReplacedAddedAndRemoved(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        #expect(try store.replaceTags(appID: "app_a", userID: "u", tags: ["b", "a"], limits: .default) == ["a", "b"])
        #expect(try store.addTags(appID: "app_a", userID: "u", tags: ["c", "a"], limits: .default) == ["a", "b", "c"])
        #expect(try store.removeTags(appID: "app_a", userID: "u", tags: ["b", "zz"]) == ["a", "c"])
        #expect(try store.tags(appID: "app_b", userID: "u").isEmpty)
        #expect(try store.replaceTags(appID: "app_a", userID: "u", tags: ["d"], limits: .default) == ["d"])
        #expect(try store.removeTags(appID: "app_a", userID: "u", tags: nil).isEmpty)
        #expect(try store.tags(appID: "app_a", userID: "u").isEmpty)
    }

    @Test(arguments: StoreBackend.allCases)
    func tagLimitsPerUserAndPerAppAreEnforcedAndNameTheLimit(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        var limits = TagLimits()
        limits.maximumPerUser = 3
        limits.maximumDistinctPerApp = 4
        _ = try store.replaceTags(appID: "app_a", userID: "u1", tags: ["a", "b", "c"], limits: limits)
        let perUser = #expect(throws: StoreError.self) {
            try store.addTags(appID: "app_a", userID: "u1", tags: ["d"], limits: limits)
        }
        #expect(perUser?.code == .limitExceeded)
        #expect(perUser?.message.contains("at most 3 tags") == true)
        #expect(try store.tags(appID: "app_a", userID: "u1") == ["a", "b", "c"])

        _ = try store.replaceTags(appID: "app_a", userID: "u2", tags: ["a", "d"], limits: limits)
        let perApp = #expect(throws: StoreError.self) {
            try store.addTags(appID: "app_a", userID: "u2", tags: ["e"], limits: limits)
        }
        #expect(perApp?.message.contains("at most 4 distinct tags") == true)
        // Another app has its own budget.
        _ = try store.replaceTags(appID: "app_b", userID: "u2", tags: ["x", "y", "z"], limits: limits)
        // Removing the last user of a tag frees its place.
        _ = try store.removeTags(appID: "app_a", userID: "u2", tags: ["d"])
        #expect(try store.addTags(appID: "app_a", userID: "u2", tags: ["e"], limits: limits) == ["a", "e"])
        // Replacing a user's only holder of a tag frees it in the same change.
        #expect(try store.replaceTags(appID: "app_a", userID: "u2", tags: ["a", "f"], limits: limits) == ["a", "f"])
    }

    // MARK: Users

    @Test(arguments: StoreBackend.allCases)
    func forgettingAUserUnbindsTheirInstallationsDeletesTheirTagsAndStripsTheirEvents(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        for (app, id, user, seed) in [
            ("app_a", "a1", "alice", 1), ("app_a", "a2", "alice", 2), ("app_a", "b1", "bob", 3),
            ("app_b", "x1", "alice", 4),
        ] {
            var update = InstallationUpdate()
            update.userID = .set(user)
            update.apnsToken = .set(token(seed))
            _ = try store.upsertInstallation(appID: app, installationID: id, update: update, now: Self.now)
        }
        var limits = TagLimits()
        limits.maximumDistinctPerApp = 3
        _ = try store.replaceTags(appID: "app_a", userID: "alice", tags: ["vip", "solo"], limits: limits)
        _ = try store.replaceTags(appID: "app_a", userID: "bob", tags: ["vip", "other"], limits: limits)
        _ = try store.replaceTags(appID: "app_b", userID: "alice", tags: ["vip"], limits: limits)
        func userEvent(_ installation: String, _ user: String?) -> TidingsEvent {
            var made = self.event(.delivery, installation: installation)
            made.userID = user
            return made
        }
        let events = [userEvent("a1", "alice"), userEvent("a2", "alice"), userEvent("b1", "bob"), userEvent("a1", nil)]
        _ = try store.insertEvents(appID: "app_a", events: events, receivedAt: Self.now)
        _ = try store.insertEvents(appID: "app_b", events: [userEvent("x1", "alice")], receivedAt: Self.now)
        let funnelBefore = try store.funnel(appID: "app_a", scope: .campaign("c1"))

        let forgotten = try store.eraseUser(appID: "app_a", userID: "alice")
        #expect(forgotten == ForgottenUser(installations: 2, tags: 2, events: 2))

        for (id, seed) in [("a1", 1), ("a2", 2)] {
            let installation = try #require(try store.installation(appID: "app_a", installationID: id))
            #expect(installation.userID == nil)
            #expect(installation.apnsToken == token(seed), "the device still gets messages sent to everyone")
        }
        #expect(try store.installation(appID: "app_a", installationID: "b1")?.userID == "bob")
        #expect(try store.installation(appID: "app_b", installationID: "x1")?.userID == "alice")
        #expect(try store.installations(appID: "app_a", query: .init(userID: "alice")).isEmpty)

        #expect(try store.tags(appID: "app_a", userID: "alice").isEmpty)
        #expect(try store.tags(appID: "app_a", userID: "bob") == ["other", "vip"])
        #expect(try store.tags(appID: "app_b", userID: "alice") == ["vip"])
        #expect(try store.installations(appID: "app_a", query: .init(tag: "vip")).map(\.installationID) == ["b1"])
        // `solo` was Alice's alone: the app's distinct tags dropped to two, so a new one fits, and then no more.
        #expect(try store.addTags(appID: "app_a", userID: "carol", tags: ["new"], limits: limits) == ["new"])
        #expect(throws: StoreError.self) {
            try store.addTags(appID: "app_a", userID: "carol", tags: ["more"], limits: limits)
        }

        let stored = try store.events(appID: "app_a", query: .init()).events.map(\.event)
        #expect(stored.map(\.eventID) == events.map(\.eventID), "the events stay")
        #expect(stored.map(\.userID) == [nil, nil, "bob", nil])
        #expect(try store.events(appID: "app_a", query: .init(userID: "alice")).events.isEmpty)
        #expect(try store.events(appID: "app_b", query: .init(userID: "alice")).events.count == 1)
        #expect(try store.funnel(appID: "app_a", scope: .campaign("c1")) == funnelBefore)

        #expect(
            try store.eraseUser(appID: "app_a", userID: "alice") == ForgottenUser(installations: 0, tags: 0, events: 0)
        )
        #expect(
            try store.eraseUser(appID: "app_a", userID: "nobody")
                == ForgottenUser(installations: 0, tags: 0, events: 0))
    }

    @Test(arguments: StoreBackend.allCases)
    func eventsAreFoundByTheirUser(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        var withUser = event(.open)
        withUser.userID = "alice"
        _ = try store.insertEvents(appID: "app_a", events: [withUser, event(.open)], receivedAt: Self.now)
        #expect(try store.events(appID: "app_a", query: .init(userID: "alice")).events.map(\.event) == [withUser])
        #expect(try store.events(appID: "app_a", query: .init(userID: "bob")).events.isEmpty)
    }

    // MARK: Messages

    @Test(arguments: StoreBackend.allCases)
    func lastMessageCreatedIsTheNewestOfTheKindPerApp(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        func message(_ id: String, _ app: String, _ kind: MessageKind, at offset: Int64) -> MessageRecord {
            MessageRecord(
                id: id, appID: app, kind: kind, topic: "com.example.\(app)", payload: Array("{}".utf8), priority: 5,
                createdAt: Self.now + offset)
        }
        #expect(try store.lastMessageCreated(appID: "app_a", kind: .uninstallCheck) == nil)
        try store.createMessage(message("m1", "app_a", .uninstallCheck, at: 10), deliveries: [])
        try store.createMessage(message("m2", "app_a", .uninstallCheck, at: 30), deliveries: [])
        try store.createMessage(message("m3", "app_a", .uninstallCheck, at: 20), deliveries: [])
        try store.createMessage(message("m4", "app_a", .alert, at: 50), deliveries: [])
        try store.createMessage(message("m5", "app_b", .uninstallCheck, at: 40), deliveries: [])
        #expect(try store.lastMessageCreated(appID: "app_a", kind: .uninstallCheck) == Self.now + 30)
        #expect(try store.lastMessageCreated(appID: "app_a", kind: .alert) == Self.now + 50)
        #expect(try store.lastMessageCreated(appID: "app_a", kind: .voip) == nil)
        #expect(try store.lastMessageCreated(appID: "app_b", kind: .uninstallCheck) == Self.now + 40)
        #expect(try store.lastMessageCreated(appID: "app_missing", kind: .uninstallCheck) == nil)
        // A cancelled check still counts: it was made.
        _ = try store.cancelMessage(appID: "app_a", messageID: "m2", now: Self.now + 60)
        #expect(try store.lastMessageCreated(appID: "app_a", kind: .uninstallCheck) == Self.now + 30)
    }

    // MARK: Events

    func event(
        _ type: EventType, installation: String = "i1", message: String? = "m1", campaign: String? = "c1",
        at occurredAt: Int64 = now, id: UUID = UUID()
    ) -> TidingsEvent {
        TidingsEvent(
            eventID: id, type: type, occurredAt: occurredAt, installationID: installation, messageID: message,
            campaignID: campaign, actionID: type == .action ? "buy" : nil, attributes: ["k": "v"])
    }

    @Test(arguments: StoreBackend.allCases)
    func eventsAreDeduplicatedOnTheirIDPerAppWithNoTimeWindow(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        let first = event(.delivery)
        let second = event(.open)
        #expect(
            try store.insertEvents(appID: "app_a", events: [first, second, first], receivedAt: Self.now) == [
                true, true, false,
            ])
        #expect(
            try store.insertEvents(appID: "app_a", events: [second], receivedAt: Self.now + 86_400_000_000) == [false])
        #expect(try store.insertEvents(appID: "app_b", events: [second], receivedAt: Self.now) == [true])
        let stored = try store.events(appID: "app_a", query: .init())
        #expect(stored.events.map(\.event) == [first, second])
        #expect(stored.events.first?.receivedAt == Self.now)
        #expect(stored.nextSequence == nil)
        #expect(try store.insertEvents(appID: "app_a", events: [], receivedAt: Self.now).isEmpty)
    }

    @Test(arguments: StoreBackend.allCases)
    func everyFieldOfEveryEventInABatchIsStoredAsSentNullAndEmptyKeptApart(_ backend: StoreBackend) async throws {
        let store = try makeStore(backend)
        let full = TidingsEvent(
            type: .action, occurredAt: Self.now, installationID: "i-ü", platform: "android", sdkVersion: "1.2.3",
            appVersion: "", osVersion: "18.1", deviceModel: "iPhone17,1", userID: "ユーザー", messageID: "m1",
            campaignID: "c1", dialect: "onesignal", source: .system, appState: .background, actionID: "buy",
            value: String(repeating: "v", count: 5_000), token: "ab12", tokenType: .voip, environment: "sandbox",
            permission: "provisional", attributes: ["plan": "pro", "n": 3])
        let bare = TidingsEvent(type: .delivery, occurredAt: Self.now + 1, installationID: "i2", userID: "")
        let batch = [full, bare, full, TidingsEvent(type: .open, occurredAt: Self.now + 2, installationID: "")]
        // Through the store's path for the server, which lays the batch's text out apart from the events.
        let inserted = try await withCheckedThrowingContinuation { continuation in
            store.insertEvents(appID: "app_a", events: batch, receivedAt: Self.now) { continuation.resume(with: $0) }
        }
        #expect(inserted == [true, true, false, true])
        let stored = try store.events(appID: "app_a", query: .init()).events.map(\.event)
        #expect(stored == [full, bare, batch[3]])
        #expect(stored.map(\.userID) == ["ユーザー", "", nil])
        #expect(stored.map(\.appVersion) == ["", nil, nil])
    }

    @Test(arguments: StoreBackend.allCases)
    func eventsAreFilteredAndPaged(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        let events = (0..<7).map { index in
            event(index % 2 == 0 ? .delivery : .open, message: "m\(index % 3)", at: Self.now + Int64(index))
        }
        _ = try store.insertEvents(appID: "app_a", events: events, receivedAt: Self.now)
        _ = try store.insertEvents(appID: "app_b", events: [event(.delivery)], receivedAt: Self.now)

        #expect(try store.events(appID: "app_a", query: .init(type: .open)).events.count == 3)
        #expect(try store.events(appID: "app_a", query: .init(messageID: "m0")).events.count == 3)
        #expect(try store.events(appID: "app_a", query: .init(campaignID: "c1")).events.count == 7)
        let window = try store.events(appID: "app_a", query: .init(since: Self.now + 2, until: Self.now + 5))
        #expect(window.events.map(\.event.occurredAt) == [Self.now + 2, Self.now + 3, Self.now + 4])

        var collected: [TidingsEvent] = []
        var query = EventQuery(limit: 3)
        var pages = 0
        repeat {
            let page = try store.events(appID: "app_a", query: query)
            collected += page.events.map(\.event)
            query.afterSequence = page.nextSequence
            pages += 1
        } while query.afterSequence != nil
        #expect(collected == events)
        #expect(pages == 3)
    }

    @Test(arguments: StoreBackend.allCases)
    func theFunnelCountsEventsAndDistinctInstallationsPerType(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        let events = [
            event(.delivery, installation: "i1"), event(.delivery, installation: "i2"),
            event(.open, installation: "i1"), event(.open, installation: "i1"),
            event(.action, installation: "i2", message: "m2"), event(.delivery, installation: "i3", campaign: "c2"),
        ]
        _ = try store.insertEvents(appID: "app_a", events: events, receivedAt: Self.now)
        let campaign = try store.funnel(appID: "app_a", scope: .campaign("c1"))
        #expect(campaign.eventsByType == ["delivery": 2, "open": 2, "action": 1])
        #expect(campaign.installationsByType == ["delivery": 2, "open": 1, "action": 1])
        #expect(campaign.uniqueInstallations == 2)
        let message = try store.funnel(appID: "app_a", scope: .message("m2"))
        #expect(message.eventsByType == ["action": 1])
        #expect(try store.funnel(appID: "app_b", scope: .campaign("c1")) == EventFunnel())
    }

    @Test(arguments: StoreBackend.allCases)
    func lookupsByInstallationMessageAndCampaignMeetEachEventOnceAcrossBatches(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        // Batches that interleave installations and messages, repeat values, and resend earlier events: each
        // event must be found once, in the order it arrived.
        var sent: [TidingsEvent] = []
        for batch in 0..<6 {
            var events = (0..<10).map { index in
                event(
                    index % 2 == 0 ? .delivery : .open, installation: "i\(index % 3)",
                    message: index % 4 == 0 ? nil : "m\(batch % 2)", campaign: "c\((batch + index) % 2)")
            }
            if let earlier = sent.last { events.insert(earlier, at: 5) }
            let inserted = try store.insertEvents(appID: "app_a", events: events, receivedAt: Self.now)
            #expect(inserted.filter { !$0 }.count == (sent.isEmpty ? 0 : 1))
            sent += events.enumerated().filter { inserted[$0.offset] }.map(\.element)
        }
        #expect(
            try store.insertEvents(appID: "app_a", events: Array(sent.prefix(4)), receivedAt: Self.now) == [
                false, false, false, false,
            ])
        _ = try store.insertEvents(appID: "app_b", events: [event(.open, installation: "i0")], receivedAt: Self.now)

        for message in ["m0", "m1"] {
            let expected = sent.filter { $0.messageID == message }
            let funnel = try store.funnel(appID: "app_a", scope: .message(message))
            #expect(funnel.eventsByType.values.reduce(0, +) == expected.count)
            #expect(funnel.uniqueInstallations == Set(expected.map(\.installationID)).count)
            var collected: [TidingsEvent] = []
            var query = EventQuery(messageID: message, limit: 4)
            repeat {
                let page = try store.events(appID: "app_a", query: query)
                collected += page.events.map(\.event)
                query.afterSequence = page.nextSequence
            } while query.afterSequence != nil
            #expect(collected == expected)
        }
        let campaign = try store.funnel(appID: "app_a", scope: .campaign("c1"))
        #expect(campaign.eventsByType.values.reduce(0, +) == sent.filter { $0.campaignID == "c1" }.count)
        let opens = try store.events(appID: "app_a", query: EventQuery(type: .open, campaignID: "c0", limit: 100))
        #expect(opens.events.map(\.event) == sent.filter { $0.campaignID == "c0" && $0.type == .open })
        let both = try store.events(appID: "app_a", query: EventQuery(messageID: "m1", campaignID: "c0", limit: 100))
        #expect(both.events.map(\.event) == sent.filter { $0.messageID == "m1" && $0.campaignID == "c0" })

        let timeline = try store.events(appID: "app_a", installationID: "i1", limit: 5)
        #expect(timeline.map(\.event) == Array(sent.filter { $0.installationID == "i1" }.reversed().prefix(5)))
        #expect(try store.events(appID: "app_b", installationID: "i0", limit: 10).count == 1)
    }
}
