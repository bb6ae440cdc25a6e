import Foundation
import Testing
import TidingsModel
import TidingsStore
import TidingsStoreTesting

/// Messages and their fan-out, the same on every ``Store`` backend: claims, leases, results, cancellation,
/// finishing, and the token marks fan-out leaves.
@Suite struct StoreMessageTests {
    static let now: Int64 = 1_800_000_000_000

    func makeStore(_ backend: StoreBackend) throws -> any Store {
        let store = try backend.makeStore()
        for id in ["app_a", "app_b"] {
            try store.createApp(AppRecord(id: id, name: id, bundleID: "com.example.\(id)", createdAt: Self.now))
        }
        return store
    }

    func message(_ id: String, app: String = "app_a", campaign: String? = nil) -> MessageRecord {
        MessageRecord(
            id: id, appID: app, kind: .alert, campaignID: campaign, topic: "com.example.\(app)",
            payload: Array(#"{"aps":{}}"#.utf8), priority: 10, expiresAt: Self.now + 3_600_000, collapseID: "c",
            nightPolicy: .defer, createdAt: Self.now)
    }

    func delivery(_ messageID: String, _ installation: String, app: String = "app_a", notBefore: Int64 = 0)
        -> MessageDelivery
    {
        MessageDelivery(
            messageID: messageID, appID: app, installationID: installation, token: "token-\(installation)",
            notBefore: notBefore)
    }

    @Test(arguments: StoreBackend.allCases)
    func aMessageRoundTripsItsIDIsUniqueAndARepeatedTargetCountsOnce(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        let stored = message("m1", campaign: "spring")
        var skipped = delivery("m1", "i3")
        skipped.state = .skipped
        skipped.reason = "no_consent"
        try store.createMessage(
            stored, deliveries: [delivery("m1", "i1"), delivery("m1", "i2"), delivery("m1", "i1"), skipped])
        #expect(try store.message(appID: "app_a", messageID: "m1") == stored)
        #expect(try store.message(appID: "app_b", messageID: "m1") == nil, "another app's message is not found")
        let counts = try store.messageCounts(messageID: "m1")
        #expect(counts.targets == 3)
        #expect(counts.queued == 2)
        #expect(counts.skippedByReason == ["no_consent": 1])

        let conflict = #expect(throws: StoreError.self) { try store.createMessage(message("m1"), deliveries: []) }
        #expect(conflict?.code == .conflict)
        #expect(try store.messageCounts(messageID: "m1").targets == 3, "the refused message added nothing")
    }

    /// More deliveries than PostgreSQL binds in one statement: every one is stored with its own fields, and a
    /// target repeated in a later statement still counts once, the first kept.
    @Test(arguments: StoreBackend.allCases)
    func aMessageOfManyDeliveriesKeepsEachOnceWithItsFields(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        var deliveries = (0..<12_000).map { index in
            var row = delivery("m1", "i\(index)", notBefore: Int64(index))
            row.variant = index.isMultiple(of: 2) ? "a" : nil
            row.language = index.isMultiple(of: 3) ? "fr" : nil
            row.dueAt = index.isMultiple(of: 5) ? Self.now + Int64(index) : nil
            return row
        }
        // One repeat in the same statement as its first, one in a later statement.
        var repeatedNearby = delivery("m1", "i8")
        repeatedNearby.token = "token-repeated"
        deliveries.insert(repeatedNearby, at: 100)
        var repeated = delivery("m1", "i7")
        repeated.token = "token-repeated"
        deliveries.append(repeated)
        try store.createMessage(message("m1"), deliveries: deliveries)
        #expect(try store.messageCounts(messageID: "m1").targets == 12_000)
        // The last rows are due last: claim everything due by then and look at a few from each statement.
        let claimed = try store.claimDeliveries(
            worker: "w", limit: 12_000, now: Self.now + 12_000, leaseUntil: Self.now + 20_000)
        let byID = Dictionary(uniqueKeysWithValues: claimed.map { ($0.installationID, $0) })
        #expect(byID.count == 12_000)
        #expect(byID["i7"]?.token == "token-i7", "the first of a repeated target is kept")
        #expect(byID["i8"]?.token == "token-i8", "the first of a repeated target is kept")
        for index in [0, 1, 4_998, 4_999, 5_000, 9_999, 10_000, 11_999] {
            let row = byID["i\(index)"]
            #expect(row?.notBefore == Int64(index))
            #expect(row?.variant == (index.isMultiple(of: 2) ? "a" : nil))
            #expect(row?.language == (index.isMultiple(of: 3) ? "fr" : nil))
            #expect(row?.dueAt == (index.isMultiple(of: 5) ? Self.now + Int64(index) : nil))
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func claimsTakeDueDeliveriesOnceInOrderAndMarkTheMessageSending(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        try store.createMessage(
            message("m1"),
            deliveries: [
                delivery("m1", "i2"), delivery("m1", "i1"), delivery("m1", "later", notBefore: Self.now + 1000),
            ])
        try store.createMessage(message("m2"), deliveries: [delivery("m2", "i0")])
        // The oldest message's share comes first, its rows in (due time, installation) order.
        let first = try store.claimDeliveries(worker: "w1", limit: 1, now: Self.now, leaseUntil: Self.now + 500)
        #expect(first.map(\.installationID) == ["i1"])
        #expect(first.allSatisfy { $0.state == .claimed && $0.token == "token-\($0.installationID)" })
        #expect(try store.message(appID: "app_a", messageID: "m1")?.state == .sending)
        #expect(try store.message(appID: "app_a", messageID: "m2")?.state == .queued)
        let second = try store.claimDeliveries(worker: "w2", limit: 10, now: Self.now, leaseUntil: Self.now + 500)
        #expect(second.map(\.installationID) == ["i2", "i0"], "claimed rows and rows not yet due are left")
        #expect(try store.message(appID: "app_a", messageID: "m2")?.state == .sending)
        #expect(try store.messageCounts(messageID: "m1").inFlight == 2)
        #expect(try store.claimDeliveries(worker: "w3", limit: 10, now: Self.now, leaseUntil: Self.now + 500).isEmpty)
        // The one not due before now + 1000 comes when it is due.
        let due = try store.claimDeliveries(worker: "w3", limit: 10, now: Self.now + 1000, leaseUntil: Self.now + 2000)
        #expect(due.map(\.installationID).contains("later"))
    }

    @Test(arguments: StoreBackend.allCases)
    func anExpiredLeaseGoesBackToPendingAndOnlyTheHolderMayComplete(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        try store.createMessage(message("m1"), deliveries: [delivery("m1", "i1")])
        _ = try store.claimDeliveries(worker: "w1", limit: 1, now: Self.now, leaseUntil: Self.now + 100)
        #expect(
            try !store.completeDelivery(
                messageID: "m1", installationID: "i1", worker: "w2", result: .sent, now: Self.now)
        )
        let reclaimed = try store.claimDeliveries(
            worker: "w2", limit: 1, now: Self.now + 100, leaseUntil: Self.now + 200)
        #expect(reclaimed.map(\.installationID) == ["i1"])
        #expect(
            try !store.completeDelivery(
                messageID: "m1", installationID: "i1", worker: "w1", result: .sent, now: Self.now + 150),
            "the first worker lost its lease")
        #expect(
            try store.completeDelivery(
                messageID: "m1", installationID: "i1", worker: "w2", result: .sent, now: Self.now + 150))
        #expect(
            try !store.completeDelivery(
                messageID: "m1", installationID: "i1", worker: "w2", result: .failed(reason: "late"), now: Self.now),
            "a sent row never moves again")
        #expect(try store.messageCounts(messageID: "m1").sent == 1)
    }

    @Test(arguments: StoreBackend.allCases)
    func resultsCountAttemptsAndRetriesWaitForTheirTime(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        try store.createMessage(
            message("m1"), deliveries: ["a", "b", "c", "d"].map { delivery("m1", $0) })
        _ = try store.claimDeliveries(worker: "w", limit: 10, now: Self.now, leaseUntil: Self.now + 100)
        let results: [(String, DeliveryResult)] = [
            ("a", .failed(reason: "BadDeviceToken")), ("b", .skipped(reason: "no_fcm_credentials")),
            ("c", .retry(reason: "TooManyRequests", notBefore: Self.now + 50)),
            ("d", .deferred(reason: "night", notBefore: Self.now + 80)),
        ]
        for (installation, result) in results {
            #expect(
                try store.completeDelivery(
                    messageID: "m1", installationID: installation, worker: "w", result: result, now: Self.now))
        }
        let counts = try store.messageCounts(messageID: "m1")
        #expect(counts.failedByReason == ["BadDeviceToken": 1])
        #expect(counts.skippedByReason == ["no_fcm_credentials": 1])
        #expect(counts.queued == 2)
        #expect(
            try store.claimDeliveries(worker: "w", limit: 10, now: Self.now + 49, leaseUntil: Self.now + 100).isEmpty)
        let retried = try store.claimDeliveries(worker: "w", limit: 10, now: Self.now + 80, leaseUntil: Self.now + 200)
        #expect(retried.map(\.installationID) == ["c", "d"])
        #expect(retried.map(\.attempts) == [1, 0], "a retry uses an attempt, a deferral does not")
        #expect(retried.map(\.reason) == ["TooManyRequests", "night"])
        #expect(retried.map(\.notBefore) == [Self.now + 50, Self.now + 80])
    }

    /// Issue #36: a cancel used to skip only pending rows; claimed ones went out, and claims released after it
    /// stayed pending under the cancelled message for ever.
    @Test(arguments: StoreBackend.allCases)
    func cancellingEndsEveryRowNotHandedToTheProviderAndTheCountsAddUp(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        try store.createMessage(message("m1"), deliveries: ["a", "b", "c", "d", "e"].map { delivery("m1", $0) })
        let claimed = try store.claimDeliveries(
            worker: "w", claim: DeliveryClaim(limit: 3), now: Self.now, leaseUntil: Self.now + 100)
        #expect(claimed.map(\.installationID) == ["a", "b", "c"])
        let heard = LockedBox<[StoreChange]>([])
        let observation = store.changes.observe { change in heard.withLock { $0.append(change) } }
        defer { observation.cancel() }

        let cancelled = try store.cancelMessage(appID: "app_a", messageID: "m1", now: Self.now + 5)
        #expect(cancelled?.state == .cancelled)
        #expect(cancelled?.finishedAt == Self.now + 5)
        #expect(heard.withLock { $0 }.contains(.messageCancelled(id: "m1")), "workers are told")
        #expect(try store.cancelMessage(appID: "app_a", messageID: "m1", now: Self.now + 9)?.finishedAt == Self.now + 5)
        #expect(try store.cancelMessage(appID: "app_b", messageID: "m1", now: Self.now) == nil)
        var counts = try store.messageCounts(messageID: "m1")
        #expect(counts.cancelled == 5 && counts.queued == 0 && counts.inFlight == 0, "\(counts)")
        #expect(counts.skipped == 0)
        #expect(
            try store.checkClaims(claimed, worker: "w", now: Self.now + 6).held == [false, false, false],
            "the worker's check before sending refuses them")

        // Answers for the claims: a push handed to the provider before the cancel counts as what it became; a
        // retry or a hand-back leaves the row cancelled.
        let completions = zip(
            claimed,
            [
                DeliveryResult.sent, .retry(reason: "InternalServerError", notBefore: Self.now),
                .deferred(reason: "interrupted", notBefore: Self.now),
            ]
        ).map { delivery, result in
            DeliveryCompletion(
                messageID: "m1", appID: "app_a", installationID: delivery.installationID, result: result,
                claimEpoch: delivery.claimEpoch)
        }
        #expect(try store.completeDeliveries(completions, worker: "w", now: Self.now + 10) == [true, true, true])
        #expect(
            try store.completeDeliveries(completions, worker: "w", now: Self.now + 11) == [false, false, false],
            "recorded once")
        _ = try store.releaseAllClaims(now: Self.now + 12)
        #expect(
            try store.claimDeliveries(
                worker: "w", claim: DeliveryClaim(limit: 10), now: Self.now + 20, leaseUntil: Self.now + 100
            ).isEmpty)
        counts = try store.messageCounts(messageID: "m1")
        #expect(counts.sent == 1 && counts.cancelled == 4, "\(counts)")
        #expect(counts.targets == counts.finished, "every row is final: \(counts)")
    }

    @Test(arguments: StoreBackend.allCases)
    func messagesFinishWhenNothingIsPendingOrClaimedAndReleasingFreesEveryClaim(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        try store.createMessage(message("m1"), deliveries: [delivery("m1", "a"), delivery("m1", "b")])
        try store.createMessage(message("m2"), deliveries: [])
        #expect(try store.finishMessages(now: Self.now) == ["m2"])
        #expect(try store.message(appID: "app_a", messageID: "m2")?.state == .done)
        #expect(try store.message(appID: "app_a", messageID: "m2")?.finishedAt == Self.now)

        _ = try store.claimDeliveries(worker: "w", limit: 2, now: Self.now, leaseUntil: Self.now + 100)
        #expect(try store.releaseAllClaims(now: Self.now + 1) == 2)
        #expect(try store.messageCounts(messageID: "m1").queued == 2)
        #expect(try store.finishMessages(now: Self.now + 1).isEmpty)
        for installation in ["a", "b"] {
            _ = try store.claimDeliveries(worker: "w", limit: 1, now: Self.now + 2, leaseUntil: Self.now + 100)
            try store.completeDelivery(
                messageID: "m1", installationID: installation, worker: "w", result: .sent, now: Self.now + 3)
        }
        #expect(try store.finishMessages(now: Self.now + 4) == ["m1"])
        #expect(try store.message(appID: "app_a", messageID: "m1")?.state == .done)
        #expect(try store.finishMessages(now: Self.now + 5).isEmpty)
    }

    @Test(arguments: StoreBackend.allCases)
    func messagesNamedFinishOnlyWhenNothingOfThemIsPendingOrClaimed(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        try store.createMessage(message("m1"), deliveries: [delivery("m1", "a"), delivery("m1", "b")])
        try store.createMessage(message("m2"), deliveries: [delivery("m2", "c")])
        try store.createMessage(message("m3"), deliveries: [])
        #expect(try store.finishMessages(ids: [], now: Self.now).isEmpty)
        #expect(try store.finishMessages(ids: ["m1", "m2"], now: Self.now).isEmpty, "both have pending rows")

        let claimed = try store.claimDeliveries(
            worker: "w", claim: DeliveryClaim(limit: 10), now: Self.now, leaseUntil: Self.now + 100)
        #expect(claimed.count == 3)
        #expect(try store.finishMessages(ids: ["m1", "m2"], now: Self.now + 1).isEmpty, "claimed, not yet answered")
        let m2 = try #require(claimed.first { $0.messageID == "m2" })
        let a = try #require(claimed.first { $0.installationID == "a" })
        let answered = [m2, a].map { delivery in
            DeliveryCompletion(
                messageID: delivery.messageID, appID: "app_a", installationID: delivery.installationID,
                result: .sent, claimEpoch: delivery.claimEpoch)
        }
        #expect(try store.completeDeliveries(answered, worker: "w", now: Self.now + 2) == [true, true])
        #expect(
            try store.finishMessages(ids: ["m1", "m2", "m2", "unknown"], now: Self.now + 3) == ["m2"],
            "m1 still has a claimed row; an unknown id is passed over")
        #expect(try store.message(appID: "app_a", messageID: "m2")?.state == .done)
        #expect(try store.message(appID: "app_a", messageID: "m2")?.finishedAt == Self.now + 3)
        #expect(try store.message(appID: "app_a", messageID: "m3")?.state != .done, "only the messages named")
        #expect(try store.finishMessages(ids: ["m2"], now: Self.now + 4).isEmpty, "finished once")

        // A retry puts m1's row back to pending: still not finished.
        let b = try #require(claimed.first { $0.installationID == "b" })
        let retry = DeliveryCompletion(
            messageID: "m1", appID: "app_a", installationID: "b", result: .retry(reason: "busy", notBefore: Self.now),
            claimEpoch: b.claimEpoch)
        #expect(try store.completeDeliveries([retry], worker: "w", now: Self.now + 5) == [true])
        #expect(try store.finishMessages(ids: ["m1"], now: Self.now + 6).isEmpty)
    }

    @Test(arguments: StoreBackend.allCases)
    func campaignCountsAddUpTheirMessagesOfOneApp(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        try store.createMessage(message("m1", campaign: "spring"), deliveries: [delivery("m1", "a")])
        try store.createMessage(
            message("m2", campaign: "spring"), deliveries: [delivery("m2", "a"), delivery("m2", "b")])
        try store.createMessage(message("m3", campaign: "autumn"), deliveries: [delivery("m3", "a")])
        try store.createMessage(
            message("m4", app: "app_b", campaign: "spring"), deliveries: [delivery("m4", "x", app: "app_b")])
        #expect(try store.campaignCounts(appID: "app_a", campaignID: "spring").targets == 3)
        #expect(try store.campaignCounts(appID: "app_b", campaignID: "spring").targets == 1)
        #expect(try store.campaignCounts(appID: "app_a", campaignID: "none") == MessageCounts())
    }

    @Test(arguments: StoreBackend.allCases)
    func aMismatchMarkNamesATokenTheInstallationHolds(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        var update = InstallationUpdate()
        update.apnsToken = .set("aa")
        _ = try store.upsertInstallation(appID: "app_a", installationID: "i", update: update, now: Self.now)
        #expect(try store.tokenMismatch(appID: "app_a", installationID: "i") == nil)
        #expect(try !store.markTokenMismatch(token: "bb", appID: "app_a", installationID: "i", now: Self.now))
        #expect(try !store.markTokenMismatch(token: "aa", appID: "app_b", installationID: "i", now: Self.now))
        #expect(try store.markTokenMismatch(token: "aa", appID: "app_a", installationID: "i", now: Self.now + 1))
        let mark = try #require(try store.tokenMismatch(appID: "app_a", installationID: "i"))
        #expect(mark.token == "aa")
        #expect(mark.at == Self.now + 1)
        #expect(try store.installation(appID: "app_a", installationID: "i")?.apnsToken == "aa", "the token is kept")
    }

    @Test(arguments: StoreBackend.allCases)
    func forgettingAUserSkipsTheirPendingDeliveriesAndForgetsWhomTheyWereFor(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        var forAlice = delivery("m1", "a")
        forAlice.targetUserID = "alice"
        var sentToAlice = delivery("m1", "b")
        sentToAlice.targetUserID = "alice"
        var forBob = delivery("m1", "c")
        forBob.targetUserID = "bob"
        try store.createMessage(message("m1"), deliveries: [sentToAlice, forAlice, forBob])
        let claimed = try store.claimDeliveries(worker: "w", limit: 1, now: Self.now, leaseUntil: Self.now + 100)
        #expect(claimed.map(\.targetUserID) == ["alice"])
        _ = try store.eraseUser(appID: "app_a", userID: "alice")
        #expect(try store.messageCounts(messageID: "m1").skippedByReason == ["user_changed": 1])
        let rest = try store.claimDeliveries(worker: "w", limit: 10, now: Self.now, leaseUntil: Self.now + 100)
        #expect(rest.map(\.installationID) == ["c"])
        #expect(rest.map(\.targetUserID) == ["bob"])
    }
}
