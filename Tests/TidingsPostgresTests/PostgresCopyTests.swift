import Foundation
import Testing
import TidingsModel
import TidingsStore
import TidingsStoreTesting

@testable import TidingsPostgres

/// `tidingsd store copy`: a SQLite store's contents moved into PostgreSQL, read back through the `Store`
/// protocol on both sides, with counts verified and refusals for a database in use or a missing file.
@Suite struct PostgresCopyTests {
    static let now: Int64 = 1_800_000_000_000
    /// 2025-01-10 and 2025-02-10, UTC: events over two months, so two partitions.
    static let january: Int64 = 1_736_467_200_000
    static let february: Int64 = 1_739_145_600_000

    /// A SQLite store holding some of everything, and the path of its file.
    func makeSource() throws -> (store: SQLiteStore, path: String) {
        let directory = StoreBackend.root.appendingPathComponent("copy-\(UUID().uuidString)")
        let store = try SQLiteStore(directory: directory)
        for id in ["app_a", "app_b"] {
            try store.createApp(AppRecord(id: id, name: id, bundleID: "com.example.\(id)", createdAt: Self.now))
        }
        var app = try #require(try store.app(id: "app_b"))
        app.identityVerification = .required
        app.requestsPerSecond = 50
        try store.updateApp(app)
        for provider in PushCredentialRecord.Provider.allCases {
            try store.savePushCredential(
                PushCredentialRecord(
                    appID: "app_a", provider: provider, secret: Array(0...255), settings: #"{"key_id":"K"}"#,
                    updatedAt: Self.now))
        }
        for (index, kind) in [APIKeyKind.app, .server, .admin].enumerated() {
            try store.createKey(
                APIKeyRecord(
                    id: "key_\(index)", appID: kind == .admin ? "" : "app_a", kind: kind,
                    hash: Array(repeating: UInt8(index), count: 32), hint: "tk_\(index)…",
                    createdAt: Self.now + Int64(index)))
        }
        try store.revokeKey(id: "key_1", at: Self.now + 10)
        try store.addIdentityKey(
            IdentityKeyRecord(
                appID: "app_b", keyID: "k1", algorithm: .es256, publicKeyPEM: "-----BEGIN PUBLIC KEY-----\n",
                createdAt: Self.now))
        for index in 0..<3 {
            var update = InstallationUpdate()
            update.apnsToken = .set(String(repeating: "a\(index)", count: 16))
            update.userID = .set("user-\(index % 2)")
            update.consentAds = .set(index == 0)
            update.consentNotifications = .set(true)
            update.timezone = .set("Europe/Paris")
            update.secretDigest = .set(Array(repeating: UInt8(index), count: 32))
            _ = try store.upsertInstallation(appID: "app_a", installationID: "i\(index)", update: update, now: Self.now)
        }
        try store.markTokenMismatch(
            token: String(repeating: "a1", count: 16), appID: "app_a", installationID: "i1", now: Self.now + 5)
        _ = try store.replaceTags(appID: "app_a", userID: "user-0", tags: ["vip", "fr"], limits: TagLimits())
        _ = try store.replaceTags(appID: "app_a", userID: "user-1", tags: ["fr"], limits: TagLimits())
        try store.createMessage(
            MessageRecord(
                id: "m1", appID: "app_a", kind: .alert, campaignID: "spring", topic: "com.example.app_a",
                payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8), priority: 10, createdAt: Self.now),
            deliveries: (0..<3).map {
                MessageDelivery(messageID: "m1", appID: "app_a", installationID: "i\($0)", token: "t\($0)")
            })
        _ = try store.claimDeliveries(worker: "w", limit: 2, now: Self.now, leaseUntil: Self.now + 1000)
        try store.completeDelivery(messageID: "m1", installationID: "i0", worker: "w", result: .sent, now: Self.now)
        for (receivedAt, type) in [(Self.january, EventType.delivery), (Self.february, .open)] {
            _ = try store.insertEvents(
                appID: "app_a",
                events: (0..<3).map {
                    TidingsEvent(
                        type: type, occurredAt: receivedAt, installationID: "i\($0)", userID: "user-\($0 % 2)",
                        messageID: "m1", campaignID: "spring", attributes: ["k": "v"])
                }, receivedAt: receivedAt)
        }
        return (store, directory.appendingPathComponent(SQLiteStore.fileName).path)
    }

    @Test func everythingArrivesAndReadsBackTheSameThroughTheStore() throws {
        let (source, path) = try makeSource()
        let target = try PostgresStore(configuration: StoreBackend.postgresConfiguration())
        let tables = try target.copy(fromSQLiteAt: path)
        let rows = Dictionary(uniqueKeysWithValues: tables.map { ($0.name, $0.copiedRows) })
        #expect(rows["apps"] == 2 && rows["api_keys"] == 2 && rows["admin_keys"] == 1)
        #expect(rows["installations"] == 3 && rows["user_tags"] == 3 && rows["events"] == 6)
        #expect(rows["message_deliveries"] == 3 && rows["identity_keys"] == 1)
        #expect(tables.allSatisfy { $0.sourceRows == $0.copiedRows })
        #expect(rows["instances"] == nil && rows["leases"] == nil, "running processes' rows are not copied")

        #expect(try target.apps() == source.apps())
        #expect(try target.keys(appID: nil) == source.keys(appID: nil))
        #expect(try target.key(hash: Array(repeating: 2, count: 32))?.kind == .admin)
        #expect(try target.identityKeys(appID: "app_b") == source.identityKeys(appID: "app_b"))
        #expect(rows["push_credentials"] == 2)
        for provider in PushCredentialRecord.Provider.allCases {
            let copied = try target.pushCredential(appID: "app_a", provider: provider)
            let original = try source.pushCredential(appID: "app_a", provider: provider)
            #expect(copied != nil && copied == original)
        }
        for index in 0..<3 {
            #expect(
                try target.installation(appID: "app_a", installationID: "i\(index)")
                    == source.installation(appID: "app_a", installationID: "i\(index)"))
        }
        #expect(try target.tokenMismatch(appID: "app_a", installationID: "i1")?.at == Self.now + 5)
        #expect(try target.tags(appID: "app_a", userID: "user-0") == ["fr", "vip"])
        #expect(try target.message(appID: "app_a", messageID: "m1") == source.message(appID: "app_a", messageID: "m1"))
        var counts = try source.messageCounts(messageID: "m1")
        #expect(counts.inFlight == 1)
        counts = try target.messageCounts(messageID: "m1")
        #expect(
            counts.inFlight == 0 && counts.sent == 1 && counts.targets == 3, "the SQLite process's claim is released")
        #expect(
            try target.funnel(appID: "app_a", scope: .campaign("spring"))
                == source.funnel(appID: "app_a", scope: .campaign("spring")))
        // Found through the ranges the copy made: a device's timeline too.
        #expect(
            try target.events(appID: "app_a", installationID: "i1", limit: 100)
                == source.events(appID: "app_a", installationID: "i1", limit: 100))
        #expect(try !target.events(appID: "app_a", installationID: "i1", limit: 100).isEmpty)
        let copiedEvents = try target.events(appID: "app_a", query: EventQuery(limit: 100))
        #expect(copiedEvents == (try source.events(appID: "app_a", query: EventQuery(limit: 100))))

        // The copy goes on working: ids stay de-duplicated, new events number after the copied ones, the
        // released delivery is claimable, and the tag counts hold.
        let old = copiedEvents.events[0].event
        let new = TidingsEvent(type: .open, occurredAt: Self.now, installationID: "i0")
        #expect(try target.insertEvents(appID: "app_a", events: [old, new], receivedAt: Self.now) == [false, true])
        let after = try target.events(
            appID: "app_a", query: EventQuery(afterSequence: copiedEvents.events.last?.sequence))
        #expect(after.events.map(\.event.eventID) == [new.eventID])
        #expect(
            try target.claimDeliveries(worker: "w", limit: 10, now: Self.now, leaseUntil: Self.now + 1000).count == 2)
        var limits = TagLimits()
        limits.maximumDistinctPerApp = 2
        #expect(throws: StoreError.self) {
            try target.addTags(appID: "app_a", userID: "user-1", tags: ["new"], limits: limits)
        }
    }

    @Test func aDatabaseInUseAndAMissingFileAreRefusedAndNothingIsCopied() throws {
        let (_, path) = try makeSource()
        let target = try PostgresStore(configuration: StoreBackend.postgresConfiguration())
        try target.createApp(AppRecord(id: "app_z", name: "z", bundleID: "com.example.z", createdAt: Self.now))
        let inUse = #expect(throws: StoreError.self) { try target.copy(fromSQLiteAt: path) }
        #expect(inUse?.code == .conflict)
        #expect(inUse?.message.contains("empty database") == true)
        #expect(try target.apps().map(\.id) == ["app_z"], "the refused copy added nothing")

        let missing = #expect(throws: StoreError.self) { try target.copy(fromSQLiteAt: path + ".missing") }
        #expect(missing?.code == .notFound)
        #expect(!FileManager.default.fileExists(atPath: path + ".missing"), "no empty file is created")
    }
}
