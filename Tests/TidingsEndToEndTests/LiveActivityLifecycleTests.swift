import Foundation
import Testing
import TidingsModel
import TidingsTesting

/// A Live Activity's whole life on simulated iPhones running the real SDK: push-to-start tokens reported
/// at registration → `POST /v1/live-activities` start → ActivityKit gives each activity an update token,
/// which the SDK reports → update → end, after which the SDK removes the tokens.
@Suite struct LiveActivityLifecycleTests {
    static let devices = 6
    static let type = "DeliveryAttributes"

    @Test func anActivityStartsUpdatesAndEndsOnEveryDevice() async throws {
        let harness = try await EndToEndHarness(devices: Self.devices, liveActivityTypes: [Self.type])
        do {
            let driver = harness.driver
            let fleet = harness.fleet
            let now = Int64(Date().timeIntervalSince1970)

            let started = try await driver.sendLiveActivity([
                "event": "start", "activity_id": "order-42", "target": ["all": true],
                "attributes_type": .string(Self.type), "attributes": ["orderNumber": "42"],
                "content_state": ["eta": 30], "alert": ["title": "Order on its way", "body": "Track it live"],
                "timestamp": .integer(now),
            ])
            #expect(started["sent"] == .integer(Int64(Self.devices)))
            let shown = try await driver.waitForLiveActivity(
                id: "order-42", on: Self.devices, fleet: fleet, timeout: .seconds(20)
            ) { $0.phase == .active && $0.contentState["eta"] == 30 }
            #expect(shown.allSatisfy { $0.attributes["orderNumber"] == "42" && $0.attributesType == Self.type })
            // Every device reported the update token ActivityKit gave its activity.
            let tokens = try await driver.waitForLiveActivityTokens(
                id: "order-42", count: Self.devices, timeout: .seconds(20))
            #expect(Set(tokens) == Set(shown.map(\.updateToken)))

            let updated = try await driver.sendLiveActivity([
                "event": "update", "activity_id": "order-42", "content_state": ["eta": 5],
                "stale_date": .integer(now + 600), "timestamp": .integer(now + 1),
            ])
            #expect(updated["sent"] == .integer(Int64(Self.devices)))
            _ = try await driver.waitForLiveActivity(
                id: "order-42", on: Self.devices, fleet: fleet, timeout: .seconds(20)
            ) { $0.contentState["eta"] == 5 && $0.updates == 1 && $0.staleDate == now + 600 }

            // ActivityKit drops a push older than the state it shows: the devices keep eta 5.
            let outdated = try await driver.sendLiveActivity([
                "event": "update", "activity_id": "order-42", "content_state": ["eta": 99], "timestamp": .integer(now),
            ])
            #expect(outdated["sent"] == .integer(Int64(Self.devices)))
            _ = try await driver.waitForLiveActivity(
                id: "order-42", on: Self.devices, fleet: fleet, timeout: .seconds(20)
            ) { $0.outdatedPushes == 1 && $0.contentState["eta"] == 5 }

            let ended = try await driver.sendLiveActivity([
                "event": "end", "activity_id": "order-42", "content_state": ["eta": 0],
                "dismissal_date": .integer(now + 900), "timestamp": .integer(now + 2),
            ])
            #expect(ended["sent"] == .integer(Int64(Self.devices)))
            _ = try await driver.waitForLiveActivity(
                id: "order-42", on: Self.devices, fleet: fleet, timeout: .seconds(20)
            ) { $0.phase == .ended && $0.contentState["eta"] == 0 && $0.dismissalDate == now + 900 }
            // The SDK removed the ended activity's tokens: the server no longer knows the activity.
            #expect(try await driver.waitForLiveActivityTokens(id: "order-42", count: 0, timeout: .seconds(20)).isEmpty)
            let afterEnd = try await harness.call(
                "POST", "/v1/live-activities",
                body: ["event": "update", "activity_id": "order-42", "content_state": ["eta": 1]])
            #expect(afterEnd.json["sent"] == 0 || afterEnd.status == 404)

            let tally = await fleet.stop()
            #expect(fleet.failures.isEmpty)
            #expect(tally.liveActivityStarts == Self.devices)
            #expect(tally.liveActivityUpdates == Self.devices)
            #expect(tally.liveActivityOutdated == Self.devices)
            #expect(tally.liveActivityEnds == Self.devices)
            #expect(tally.liveActivityRefused == 0)
            // Live Activity pushes are not alerts: nothing reached the notification centre.
            #expect(tally.delivered == 0)
        } catch {
            await harness.tearDown()
            throw error
        }
        await harness.tearDown()
    }

    @Test func devicesWithoutPushToStartTokensAreNotStarted() async throws {
        let harness = try await EndToEndHarness(devices: 3)
        do {
            let answer = try await harness.call(
                "POST", "/v1/live-activities",
                body: [
                    "event": "start", "activity_id": "order-7", "target": ["all": true],
                    "attributes_type": .string(Self.type), "attributes": ["orderNumber": "7"],
                    "content_state": ["eta": 30], "alert": ["title": "Order", "body": "On its way"],
                ])
            #expect(answer.status == 200)
            #expect(answer.json["sent"] == 0)
            try await Task.sleep(for: .milliseconds(300))
            #expect(await harness.fleet.liveActivity(id: "order-7").isEmpty)
        } catch {
            await harness.tearDown()
            throw error
        }
        await harness.tearDown()
    }
}
