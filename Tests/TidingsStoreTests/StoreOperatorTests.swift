import Foundation
import Testing
import TidingsModel
import TidingsStore
import TidingsStoreTesting

/// Console operators, sessions, the audit log and the overview reads, the same on every ``Store`` backend.
@Suite struct StoreOperatorTests {
    static let now: Int64 = 1_800_000_000_000

    func makeStore(_ backend: StoreBackend) throws -> any Store {
        let store = try backend.makeStore()
        for id in ["app_a", "app_b"] {
            try store.createApp(AppRecord(id: id, name: id, bundleID: "com.example.\(id)", createdAt: Self.now))
        }
        return store
    }

    func session(_ byte: UInt8, _ name: String, created: Int64 = now, seen: Int64 = now) -> OperatorSession {
        OperatorSession(
            idDigest: [UInt8](repeating: byte, count: 32), operatorName: name, csrfToken: "csrf-\(byte)",
            createdAt: created, lastSeenAt: seen)
    }

    @Test(arguments: StoreBackend.allCases)
    func signInTrustIsPerOperatorKindAndTimeAndGoesWithTheOperator(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        for name in ["ada", "bob"] {
            try store.createOperator(OperatorRecord(name: name, role: .admin, passwordHash: "h", createdAt: Self.now))
        }
        let browser = SignInTrust(kind: .browser, digest: [UInt8](repeating: 7, count: 32))
        let sameDigestAsAddress = SignInTrust(kind: .address, digest: browser.digest)
        try store.rememberSignIn(browser, operatorName: "ada", at: Self.now)
        #expect(try store.isTrusted(browser, operatorName: "ada", since: Self.now))
        #expect(try !store.isTrusted(browser, operatorName: "ada", since: Self.now + 1))
        #expect(try !store.isTrusted(browser, operatorName: "bob", since: 0))
        #expect(try !store.isTrusted(sameDigestAsAddress, operatorName: "ada", since: 0))
        // A later sign-in from the same browser renews it.
        try store.rememberSignIn(browser, operatorName: "ada", at: Self.now + 5000)
        #expect(try store.isTrusted(browser, operatorName: "ada", since: Self.now + 5000))
        try store.removeOperator(name: "ada")
        try store.createOperator(OperatorRecord(name: "ada", role: .viewer, passwordHash: "h", createdAt: Self.now))
        #expect(try !store.isTrusted(browser, operatorName: "ada", since: 0))
    }

    @Test(arguments: StoreBackend.allCases)
    func operatorsAreCreatedOnceChangedListedAndRemoved(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        let ada = OperatorRecord(name: "ada", role: .admin, passwordHash: "scrypt$h1", createdAt: Self.now)
        try store.createOperator(ada)
        try store.createOperator(OperatorRecord(name: "bob", role: .viewer, passwordHash: "scrypt$h2", createdAt: 1))
        #expect(try store.operatorAccount(named: "ada") == ada)
        #expect(try store.operatorAccount(named: "nobody") == nil)
        let conflict = #expect(throws: StoreError.self) {
            try store.createOperator(OperatorRecord(name: "ada", role: .viewer, passwordHash: "x", createdAt: 2))
        }
        #expect(conflict?.code == .conflict)
        #expect(try store.operatorAccount(named: "ada")?.role == .admin, "the refused create changed nothing")
        #expect(try store.operatorAccounts().map(\.name) == ["ada", "bob"])

        let promoted = try store.updateOperator(name: "bob", role: .editor, passwordHash: nil)
        #expect(promoted.role == .editor)
        #expect(promoted.passwordHash == "scrypt$h2")
        let reset = try store.updateOperator(name: "bob", role: nil, passwordHash: "scrypt$h3")
        #expect(reset.role == .editor)
        #expect(reset.passwordHash == "scrypt$h3")
        let missing = #expect(throws: StoreError.self) {
            try store.updateOperator(name: "nobody", role: .admin, passwordHash: nil)
        }
        #expect(missing?.code == .notFound)

        try store.createSession(session(1, "bob"))
        #expect(try store.removeOperator(name: "bob"))
        #expect(try !store.removeOperator(name: "bob"))
        #expect(try store.session(idDigest: session(1, "bob").idDigest) == nil, "removing ends the sessions")
    }

    @Test(arguments: StoreBackend.allCases)
    func sessionsAreFoundByDigestTouchedAndEndedByTimeoutOrOperator(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        try store.createOperator(OperatorRecord(name: "ada", role: .admin, passwordHash: "h", createdAt: Self.now))
        let unknown = #expect(throws: StoreError.self) { try store.createSession(session(9, "ghost")) }
        #expect(unknown?.code == .notFound)

        try store.createSession(session(1, "ada"))
        try store.createSession(session(2, "ada", created: Self.now - 100_000, seen: Self.now - 50_000))
        try store.createSession(session(3, "ada", created: Self.now - 10_000_000, seen: Self.now))
        #expect(try store.session(idDigest: session(1, "ada").idDigest) == session(1, "ada"))
        #expect(try store.session(idDigest: [UInt8](repeating: 7, count: 32)) == nil)

        try store.touchSession(idDigest: session(1, "ada").idDigest, at: Self.now + 5)
        try store.touchSession(idDigest: session(1, "ada").idDigest, at: Self.now + 1)
        #expect(try store.session(idDigest: session(1, "ada").idDigest)?.lastSeenAt == Self.now + 5, "never goes back")

        // Session 2 is idle since before the cut, session 3 older than the absolute limit.
        let ended = try store.removeExpiredSessions(idleBefore: Self.now - 10_000, createdBefore: Self.now - 1_000_000)
        #expect(ended == 2)
        #expect(try store.session(idDigest: session(1, "ada").idDigest) != nil)
        #expect(try store.removeSession(idDigest: session(1, "ada").idDigest))
        #expect(try !store.removeSession(idDigest: session(1, "ada").idDigest))

        try store.createSession(session(4, "ada"))
        try store.createSession(session(5, "ada"))
        #expect(try store.removeSessions(operatorName: "ada") == 2)
    }

    @Test(arguments: StoreBackend.allCases)
    func theAuditLogIsReadNewestFirstInPages(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        var sequences: [Int64] = []
        for index in 0..<5 {
            let stored = try store.appendAudit(
                AuditEntry(
                    at: Self.now + Int64(index), operatorName: "ada", action: "POST /v1/messages",
                    target: "/v1/messages", appID: index == 0 ? nil : "app_a", status: 202))
            sequences.append(stored.sequence)
        }
        #expect(sequences == sequences.sorted())
        #expect(Set(sequences).count == 5)
        let first = try store.auditEntries(beforeSequence: nil, limit: 3)
        #expect(first.map(\.at) == [Self.now + 4, Self.now + 3, Self.now + 2])
        #expect(first[0].appID == "app_a")
        #expect(first[0].status == 202)
        let second = try store.auditEntries(beforeSequence: first.last?.sequence, limit: 3)
        #expect(second.map(\.at) == [Self.now + 1, Self.now])
        #expect(second.last?.appID == nil)
    }

    @Test(arguments: StoreBackend.allCases)
    func theOverviewCountsInstallationsAndDaysOfSendingOfOneAppOnly(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        for (index, platform) in ["ios", "ios", "android"].enumerated() {
            var update = InstallationUpdate()
            update.platform = .set(platform)
            if platform == "ios" {
                update.apnsToken = .set("abcdef\(index)0")
            } else {
                update.fcmToken = .set("fcm-\(index)")
            }
            if index == 0 { update.permission = .set("authorized") }
            update.consentNotifications = .set(index != 2)
            _ = try store.upsertInstallation(appID: "app_a", installationID: "i\(index)", update: update, now: Self.now)
        }
        _ = try store.upsertInstallation(appID: "app_b", installationID: "b0", update: .init(), now: Self.now)
        let breakdown = try store.installationBreakdown(appID: "app_a")
        #expect(breakdown.total == 3)
        #expect(breakdown.withToken == 3)
        #expect(breakdown.byPlatform == ["ios": 2, "android": 1])
        #expect(breakdown.byPermission == ["authorized": 1, "unknown": 2])
        #expect(breakdown.notificationConsent == 2)
        #expect(try store.installationBreakdown(appID: "app_b").total == 1)

        #expect(
            try store.installations(appID: "app_a", tokenPrefix: "abcdef1", limit: 10).map(\.installationID) == ["i1"])
        #expect(try store.installations(appID: "app_a", tokenPrefix: "abc", limit: 10).count == 2)
        #expect(try store.installations(appID: "app_a", tokenPrefix: "abc", limit: 1).count == 1)
        #expect(try store.installations(appID: "app_a", tokenPrefix: "fcm-", limit: 10).map(\.installationID) == ["i2"])
        #expect(try store.installations(appID: "app_b", tokenPrefix: "abc", limit: 10).isEmpty)

        let message = MessageRecord(
            id: "m1", appID: "app_a", kind: .alert, topic: "t", payload: Array("{}".utf8), priority: 10,
            createdAt: Self.now)
        try store.createMessage(
            message,
            deliveries: ["i0", "i1"].map {
                MessageDelivery(messageID: "m1", appID: "app_a", installationID: $0, token: "tok-\($0)")
            })
        let claimed = try store.claimDeliveries(worker: "w", limit: 10, now: Self.now, leaseUntil: Self.now + 60_000)
        #expect(claimed.count == 2)
        _ = try store.completeDelivery(messageID: "m1", installationID: "i0", worker: "w", result: .sent, now: Self.now)
        _ = try store.completeDelivery(
            messageID: "m1", installationID: "i1", worker: "w", result: .failed(reason: "BadDeviceToken"),
            now: Self.now)
        let events = [
            TidingsEvent(eventID: UUID(), type: .delivery, occurredAt: Self.now, installationID: "i0", messageID: "m1"),
            TidingsEvent(eventID: UUID(), type: .open, occurredAt: Self.now + 1, installationID: "i0", messageID: "m1"),
        ]
        _ = try store.insertEvents(appID: "app_a", events: events, receivedAt: Self.now)

        let days = try store.dailyActivity(appID: "app_a", since: Self.now - 86_400_000)
        let today = Self.now - Self.now % DailyActivity.dayMilliseconds
        #expect(days == [DailyActivity(day: today, sent: 1, failed: 1, delivered: 1, opened: 1)])
        #expect(try store.dailyActivity(appID: "app_b", since: 0).isEmpty)
        #expect(try store.failuresByReason(appID: "app_a", since: Self.now - 1) == ["BadDeviceToken": 1])
        #expect(try store.failuresByReason(appID: "app_a", since: Self.now + 1).isEmpty)

        #expect(try store.recentMessages(appID: "app_a", createdBefore: nil, limit: 10).map(\.id) == ["m1"])
        #expect(try store.recentMessages(appID: "app_a", createdBefore: Self.now, limit: 10).isEmpty)
        #expect(try store.recentMessages(appID: "app_b", createdBefore: nil, limit: 10).isEmpty)
        let deliveries = try store.deliveries(appID: "app_a", installationID: "i1", limit: 10)
        #expect(deliveries.map(\.delivery.reason) == ["BadDeviceToken"])
        #expect(deliveries.first?.updatedAt == Self.now)
        let timeline = try store.events(appID: "app_a", installationID: "i0", limit: 10)
        #expect(timeline.map(\.event.type) == [.open, .delivery])
        #expect(try store.events(appID: "app_b", installationID: "i0", limit: 10).isEmpty)
    }
}
