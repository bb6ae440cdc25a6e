import Foundation
import Testing
import TidingsModel
import TidingsStore
import TidingsStoreTesting

/// Fan-out's campaign sending on every ``Store`` backend: fair claims with transactional messages first and
/// rates bounding what is claimed, outcomes recorded a batch at a time, app send settings, frequency caps.
@Suite struct StoreSendControlTests {
    static let now: Int64 = 1_800_000_000_000

    func makeStore(_ backend: StoreBackend) throws -> any Store {
        let store = try backend.makeStore()
        for id in ["app_a", "app_b"] {
            try store.createApp(AppRecord(id: id, name: id, bundleID: "com.example.\(id)", createdAt: Self.now))
        }
        return store
    }

    func message(
        _ id: String, app: String = "app_a", type: MessageRecord.MessageType = .notification, rate: Int? = nil,
        created: Int64 = now
    ) -> MessageRecord {
        MessageRecord(
            id: id, appID: app, kind: .alert, messageType: type, topic: "com.example.\(app)",
            payload: Array(#"{"aps":{}}"#.utf8), priority: 10, expiresAt: Self.now + 3_600_000, createdAt: created,
            ratePerSecond: rate)
    }

    func deliveries(_ messageID: String, _ count: Int, app: String = "app_a") -> [MessageDelivery] {
        (0..<count).map { index in
            MessageDelivery(
                messageID: messageID, appID: app, installationID: String(format: "i%03d", index),
                token: "token-\(index)")
        }
    }

    @Test func allocationGivesTransactionalFirstThenEqualSharesAndPassesOnWhatIsUnused() {
        let claim = DeliveryClaim(limit: 10)
        let shares = claim.allocate([
            ("big", false, 100), ("reset", true, 3), ("small", false, 1), ("other", false, 100),
        ])
        #expect(shares.map(\.id) == ["big", "reset", "small", "other"])
        #expect(
            Dictionary(uniqueKeysWithValues: shares.map { ($0.id, $0.count) }) == [
                "reset": 3, "small": 1, "big": 3, "other": 3,
            ])
        #expect(DeliveryClaim(limit: 2).allocate([("reset", true, 5), ("big", false, 5)]).map(\.count) == [2])
        #expect(DeliveryClaim(limit: 0).allocate([("big", false, 5)]).isEmpty)
        let paced = DeliveryClaim(limit: 100, rateHorizonSeconds: 2)
        #expect(paced.available(due: 50, transactional: false, messageRate: 5, appRate: nil) == 10)
        #expect(paced.available(due: 50, transactional: false, messageRate: 50, appRate: 3) == 6)
        #expect(paced.available(due: 50, transactional: true, messageRate: nil, appRate: 3) == 50)
    }

    @Test(arguments: StoreBackend.allCases)
    func claimsPutTransactionalFirstAndShareTheRestBetweenMessages(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        try store.createMessage(message("campaign1", created: Self.now - 10), deliveries: deliveries("campaign1", 50))
        try store.createMessage(message("campaign2", created: Self.now - 5), deliveries: deliveries("campaign2", 50))
        try store.createMessage(message("reset", type: .transactional), deliveries: deliveries("reset", 2))
        let claimed = try store.claimDeliveries(
            worker: "w", claim: DeliveryClaim(limit: 10), now: Self.now, leaseUntil: Self.now + 1000)
        let byMessage = Dictionary(grouping: claimed, by: \.messageID).mapValues(\.count)
        #expect(byMessage == ["reset": 2, "campaign1": 4, "campaign2": 4])
        #expect(claimed.allSatisfy { $0.state == .claimed })
        #expect(try store.message(appID: "app_a", messageID: "campaign2")?.state == .sending)

        let excluded = try store.claimDeliveries(
            worker: "w", claim: DeliveryClaim(limit: 10, excludedMessageIDs: ["campaign1"]), now: Self.now,
            leaseUntil: Self.now + 1000)
        #expect(Set(excluded.map(\.messageID)) == ["campaign2"])
        #expect(excluded.map(\.installationID) == (4..<14).map { String(format: "i%03d", $0) }, "in order")

        try store.createMessage(message("reset2", type: .transactional), deliveries: deliveries("reset2", 3))
        let urgent = try store.claimDeliveries(
            worker: "w", claim: DeliveryClaim(limit: 10, onlyTransactional: true), now: Self.now,
            leaseUntil: Self.now + 1000)
        #expect(urgent.map(\.messageID) == ["reset2", "reset2", "reset2"])
        #expect(
            try store.claimDeliveries(
                worker: "w", claim: DeliveryClaim(limit: 10, onlyTransactional: true), now: Self.now,
                leaseUntil: Self.now + 1000
            ).isEmpty)
    }

    @Test(arguments: StoreBackend.allCases)
    func aPacedMessageIsClaimedOnlyAFewSecondsOfItsRateAtATime(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        try store.createMessage(message("slow", rate: 3), deliveries: deliveries("slow", 50))
        try store.createMessage(message("other", app: "app_b"), deliveries: deliveries("other", 50, app: "app_b"))
        try store.updateSendSettings(appID: "app_b", AppSendSettings(ratePerSecond: 4))
        let claimed = try store.claimDeliveries(
            worker: "w", claim: DeliveryClaim(limit: 100, rateHorizonSeconds: 2), now: Self.now,
            leaseUntil: Self.now + 1000)
        #expect(Dictionary(grouping: claimed, by: \.messageID).mapValues(\.count) == ["slow": 6, "other": 8])
    }

    @Test(arguments: StoreBackend.allCases)
    func aBatchOfOutcomesIsRecordedTogetherAndOnlyForRowsTheWorkerHolds(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        try store.createMessage(message("m1"), deliveries: deliveries("m1", 5))
        _ = try store.claimDeliveries(
            worker: "w1", claim: DeliveryClaim(limit: 4), now: Self.now, leaseUntil: Self.now + 1000)
        func completion(_ installation: String, _ result: DeliveryResult) -> DeliveryCompletion {
            DeliveryCompletion(messageID: "m1", appID: "app_a", installationID: installation, result: result)
        }
        let recorded = try store.completeDeliveries(
            [
                completion("i000", .sent), completion("i001", .failed(reason: "BadDeviceToken")),
                completion("i002", .retry(reason: "TooManyRequests", notBefore: Self.now + 50)),
                completion("i004", .sent),
            ], worker: "w1", now: Self.now)
        #expect(recorded == [true, true, true, false], "i004 was never claimed")
        #expect(
            try store.completeDeliveries([completion("i003", .sent)], worker: "w2", now: Self.now) == [false],
            "another worker's claim is not recorded")
        #expect(try store.completeDeliveries([], worker: "w1", now: Self.now).isEmpty)
        let counts = try store.messageCounts(messageID: "m1")
        #expect(counts.sent == 1)
        #expect(counts.failedByReason == ["BadDeviceToken": 1])
        #expect(counts.queued == 2, "the retry and the unclaimed row")
        #expect(
            try store.completeDeliveries([completion("i000", .failed(reason: "late"))], worker: "w1", now: Self.now)
                == [false], "a sent row never moves again")

        // A retry recorded after its message was cancelled leaves the row cancelled.
        _ = try store.cancelMessage(appID: "app_a", messageID: "m1", now: Self.now + 1)
        #expect(
            try store.completeDeliveries(
                [completion("i003", .retry(reason: "TooManyRequests", notBefore: Self.now + 50))], worker: "w1",
                now: Self.now + 2) == [true])
        #expect(try store.messageCounts(messageID: "m1").cancelled == 3)
        #expect(try store.messageCounts(messageID: "m1").queued == 0)
    }

    @Test(arguments: StoreBackend.allCases)
    func sendSettingsRoundTripAndNeedAnApp(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        #expect(try store.sendSettings(appID: "app_a") == AppSendSettings())
        let settings = AppSendSettings(
            ratePerSecond: 200, frequencyCap: FrequencyCap(count: 3, windowSeconds: 86_400), defaultTTLSeconds: 0)
        try store.updateSendSettings(appID: "app_a", settings)
        #expect(try store.sendSettings(appID: "app_a") == settings)
        #expect(try store.sendSettings(appID: "app_b") == AppSendSettings(), "per app")
        try store.updateSendSettings(appID: "app_a", AppSendSettings(defaultTTLSeconds: 600))
        #expect(try store.sendSettings(appID: "app_a") == AppSendSettings(defaultTTLSeconds: 600))
        let missing = #expect(throws: StoreError.self) { try store.sendSettings(appID: "nope") }
        #expect(missing?.code == .notFound)
        let missingUpdate = #expect(throws: StoreError.self) {
            try store.updateSendSettings(appID: "nope", AppSendSettings(ratePerSecond: 1))
        }
        #expect(missingUpdate?.code == .notFound)
    }

    @Test(arguments: StoreBackend.allCases)
    func frequencySlotsHoldTheCapPerInstallationInARollingWindow(_ backend: StoreBackend) throws {
        let store = try makeStore(backend)
        let cap = FrequencyCap(count: 2, windowSeconds: 60)
        func reserve(_ message: String, _ ids: [String], at now: Int64, app: String = "app_a") throws -> Set<String> {
            try store.reserveFrequencySlots(appID: app, messageID: message, installationIDs: ids, cap: cap, now: now)
        }
        #expect(try reserve("m1", ["a", "b"], at: Self.now) == ["a", "b"])
        #expect(try reserve("m2", ["a"], at: Self.now + 1000) == ["a"])
        #expect(try reserve("m3", ["a", "b"], at: Self.now + 2000) == ["b"], "a had its two")
        #expect(try reserve("m2", ["a"], at: Self.now + 2000) == ["a"], "a slot the message holds is granted again")
        #expect(try reserve("m3", ["a"], at: Self.now + 2000, app: "app_b") == ["a"], "per app")
        #expect(try reserve("m4", ["a"], at: Self.now + 60_000) == ["a"], "m1's slot left the window")
        #expect(try reserve("m5", ["a"], at: Self.now + 60_500) == [])

        // A push that was not sent gives its slot back.
        try store.createMessage(
            message("m6"),
            deliveries: [
                MessageDelivery(
                    messageID: "m6", appID: "app_a", installationID: "c", token: "t")
            ])
        _ = try store.claimDeliveries(
            worker: "w", claim: DeliveryClaim(limit: 1), now: Self.now, leaseUntil: Self.now + 100_000)
        #expect(try reserve("m6", ["c"], at: Self.now) == ["c"])
        #expect(try reserve("m7", ["c"], at: Self.now) == ["c"])
        try store.completeDeliveries(
            [DeliveryCompletion(messageID: "m6", appID: "app_a", installationID: "c", result: .failed(reason: "x"))],
            worker: "w", now: Self.now)
        #expect(try reserve("m8", ["c"], at: Self.now) == ["c"], "m6's slot came back")
        #expect(try reserve("m9", ["c"], at: Self.now) == [])
    }

    @Test(arguments: StoreBackend.allCases)
    func concurrentReservationsNeverExceedTheCap(_ backend: StoreBackend) async throws {
        let store = try makeStore(backend)
        let cap = FrequencyCap(count: 3, windowSeconds: 3600)
        let installations = (0..<20).map { "i\($0)" }
        let granted = try await withThrowingTaskGroup(of: Set<String>.self) { group in
            for message in 0..<8 {
                group.addTask {
                    try store.reserveFrequencySlots(
                        appID: "app_a", messageID: "m\(message)", installationIDs: installations.shuffled(), cap: cap,
                        now: Self.now)
                }
            }
            var all: [Set<String>] = []
            for try await set in group { all.append(set) }
            return all
        }
        for installation in installations {
            #expect(granted.filter { $0.contains(installation) }.count == 3, "\(installation)")
        }
    }
}
