import Foundation
import Testing
import TidingsModel
import TidingsPush
import TidingsServer
import TidingsStore
import TidingsTesting

/// How fast and how often: message rates and app ceilings pace fan-out, messages share the ceiling, a
/// transactional push overtakes a running campaign, and a frequency cap holds under concurrent messages.
@Suite struct CampaignSendingTests {
    func registered(_ count: Int) async throws -> MessageFixture {
        let fixture = try MessageFixture()
        for index in 1...count { try await fixture.register("inst-\(index)", seed: index) }
        return fixture
    }

    func messageID(_ reply: APIHarness.Reply) throws -> String {
        #expect(reply.status == 202, "\(reply.json)")
        return try #require(reply.json["message_id"]?.stringValue)
    }

    func title(_ push: OutgoingPush) -> String? {
        (try? JSONValue.parse(Data(push.payload)))?["aps"]?["alert"]?["title"]?.stringValue
    }

    func waitUntilDone(_ fixture: MessageFixture, _ ids: [String], timeout: Duration = .seconds(60)) async throws {
        let start = ContinuousClock.now
        for id in ids {
            while true {
                let status = try await fixture.status(id)
                if status.json["state"] == "done" { break }
                if ContinuousClock.now - start > timeout {
                    Issue.record("message \(id) not done in time: \(status.status) \(status.json)")
                    return
                }
                try await Task.sleep(for: .milliseconds(5))
            }
        }
    }

    @Test func aPasswordResetOvertakesARunningCampaign() async throws {
        let fixture = try await registered(150)
        // The app's ceiling makes the campaign take about three seconds.
        try fixture.store.updateSendSettings(appID: "app_main", AppSendSettings(ratePerSecond: 50))
        let campaign = try messageID(
            await fixture.send(
                .object(["target": ["all": true], "content": ["title": "Spring sale", "body": "20% off"]])))
        let service = FanoutService(store: fixture.store, provider: fixture.provider, clock: fixture.clock)
        service.start()
        while fixture.provider.pushes.count < 20 { try await Task.sleep(for: .milliseconds(5)) }
        let reset = try messageID(
            await fixture.send(
                .object([
                    "target": ["installation_ids": ["inst-150"]], "type": "transactional",
                    "content": ["title": "Reset your password", "body": "Your code is 123456"],
                ])))
        try await waitUntilDone(fixture, [reset])
        let campaignWhenResetWasSent = try await fixture.status(campaign).count("sent") ?? 0
        try await waitUntilDone(fixture, [campaign])
        await service.stop()

        let titles = fixture.provider.pushes.map(title)
        let resetIndex = try #require(titles.firstIndex(of: "Reset your password"))
        #expect(campaignWhenResetWasSent < 100, "the reset did not wait for the campaign")
        #expect(titles.count - resetIndex > 50, "most of the campaign went out after the reset")
        #expect(titles.filter { $0 == "Spring sale" }.count == 150)
        #expect(try await fixture.status(reset).json["message_type"] == "transactional")
    }

    @Test func theAppCeilingPacesSendsAndMessagesSendingAtOnceShareIt() async throws {
        let fixture = try await registered(30)
        try fixture.store.updateSendSettings(appID: "app_main", AppSendSettings(ratePerSecond: 40))
        let first = try messageID(
            await fixture.send(.object(["target": ["all": true], "content": ["title": "First", "body": "x"]])))
        let second = try messageID(
            await fixture.send(.object(["target": ["all": true], "content": ["title": "Second", "body": "x"]])))
        let start = ContinuousClock.now
        let service = FanoutService(store: fixture.store, provider: fixture.provider, clock: fixture.clock)
        service.start()
        try await waitUntilDone(fixture, [first, second])
        let elapsed = ContinuousClock.now - start
        await service.stop()
        // 60 pushes at 40 a second cannot take less than about 1.5 s (less the 20 ms burst the throttle allows).
        #expect(elapsed >= .milliseconds(1_300), "\(elapsed)")
        let titles = fixture.provider.pushes.map(title)
        #expect(titles.count == 60)
        // Fair shares: the first half of the sends is split about evenly, not one message after the other.
        let firstHalf = titles.prefix(30)
        #expect((12...18).contains(firstHalf.filter { $0 == "First" }.count), "\(titles)")
    }

    @Test func aMessageRateHoldsWithoutAnAppCeilingAndOtherMessagesAreNotHeldByIt() async throws {
        let fixture = try await registered(20)
        let slow = try messageID(
            await fixture.send(
                .object([
                    "target": ["all": true], "rate_per_second": 10, "content": ["title": "Slow", "body": "x"],
                ])))
        let start = ContinuousClock.now
        let service = FanoutService(store: fixture.store, provider: fixture.provider, clock: fixture.clock)
        service.start()
        while fixture.provider.pushes.count < 3 { try await Task.sleep(for: .milliseconds(5)) }
        let fast = try messageID(
            await fixture.send(.object(["target": ["all": true], "content": ["title": "Fast", "body": "x"]])))
        try await waitUntilDone(fixture, [fast])
        let slowSentWhenFastWasDone = try await fixture.status(slow).count("sent") ?? 0
        try await waitUntilDone(fixture, [slow])
        let elapsed = ContinuousClock.now - start
        await service.stop()
        #expect(elapsed >= .milliseconds(1_700), "20 pushes at 10 a second: \(elapsed)")
        #expect(slowSentWhenFastWasDone < 20, "the fast message did not wait for the slow one")
        #expect(try await fixture.status(slow).json["rate_per_second"] == 10)
    }

    @Test func aFrequencyCapHoldsUnderConcurrentMessagesAndWorkersAndSparesTransactionalOnes() async throws {
        let fixture = try await registered(12)
        try fixture.store.updateSendSettings(
            appID: "app_main", AppSendSettings(frequencyCap: FrequencyCap(count: 2, windowSeconds: 86_400)))
        var campaigns: [String] = []
        for index in 1...4 {
            campaigns.append(
                try messageID(
                    await fixture.send(
                        .object([
                            "target": ["all": true], "content": ["title": .string("Offer \(index)"), "body": "x"],
                        ]))))
        }
        let receipt = try messageID(
            await fixture.send(
                .object([
                    "target": ["all": true], "message_type": "transactional",
                    "content": ["title": "Receipt", "body": "x"],
                ])))
        // Two workers with small chunks, as two instances would, sending the messages at the same time.
        let workers = [fixture.worker(chunkSize: 5, inFlight: 3), fixture.worker(chunkSize: 7, inFlight: 4)]
        try await withThrowingTaskGroup(of: Int.self) { group in
            for worker in workers { group.addTask { try await worker.drain() } }
            try await group.waitForAll()
        }
        var marketingByInstallation: [String: Int] = [:]
        for push in fixture.provider.pushes where title(push) != "Receipt" {
            marketingByInstallation[push.installationID ?? "", default: 0] += 1
        }
        #expect(marketingByInstallation.count == 12)
        #expect(marketingByInstallation.values.allSatisfy { $0 == 2 }, "\(marketingByInstallation)")
        var capped: Int64 = 0
        for id in campaigns { capped += try await fixture.status(id).skipped("frequency_cap") ?? 0 }
        #expect(capped == 4 * 12 - 2 * 12)
        #expect(try await fixture.status(receipt).count("sent") == 12, "transactional messages are exempt")
        #expect(fixture.provider.pushes.filter { title($0) == "Receipt" }.count == 12)

        // The window rolls: a day later the installations may get marketing pushes again.
        fixture.clock.advance(by: .seconds(86_401))
        let later = try messageID(
            await fixture.send(.object(["target": ["all": true], "content": ["title": "Later", "body": "x"]])))
        try await fixture.worker().drain()
        #expect(try await fixture.status(later).count("sent") == 12)
    }

    @Test func aPushThatFailsGivesItsFrequencySlotBack() async throws {
        let fixture = try await registered(1)
        try fixture.store.updateSendSettings(
            appID: "app_main", AppSendSettings(frequencyCap: FrequencyCap(count: 1, windowSeconds: 3600)))
        fixture.provider.script(
            token: APIHarness.token(1), [PushOutcome(disposition: .failed, status: 400, reason: "PayloadTooLarge")])
        let failed = try messageID(await fixture.send(MessageFixture.alert(["all": true])))
        try await fixture.worker().drain()
        #expect(try await fixture.status(failed).json["counts"]?["failed_by_reason"] == ["PayloadTooLarge": 1])
        let next = try messageID(await fixture.send(MessageFixture.alert(["all": true])))
        try await fixture.worker().drain()
        #expect(try await fixture.status(next).count("sent") == 1, "the failed push did not use the cap")
        let third = try messageID(await fixture.send(MessageFixture.alert(["all": true])))
        try await fixture.worker().drain()
        #expect(try await fixture.status(third).skipped("frequency_cap") == 1)
    }

    @Test func outcomesOfAChunkAreRecordedInBatchesAndEveryDeliveryOnce() async throws {
        let fixture = try await registered(40)
        let id = try messageID(await fixture.send(MessageFixture.alert(["all": true])))
        var configuration = FanoutWorker.Configuration()
        configuration.chunkSize = 15
        configuration.completionBatchSize = 4
        let worker = FanoutWorker(
            store: fixture.store, provider: fixture.provider, clock: fixture.clock, configuration: configuration)
        #expect(try await worker.drain() == 40)
        #expect(try await fixture.status(id).count("sent") == 40)
        #expect(fixture.provider.pushCountsByToken.values.allSatisfy { $0 == 1 })
        #expect(fixture.provider.pushCountsByToken.count == 40)
    }
}
