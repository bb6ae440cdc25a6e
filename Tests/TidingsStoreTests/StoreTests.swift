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
}
