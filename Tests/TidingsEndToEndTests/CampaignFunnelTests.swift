import Foundation
import Testing
import TidingsModel
import TidingsServer
import TidingsTesting

/// The whole loop over loopback: API → fan-out → signed APNs requests → emulator → devices running the
/// real SDK (extension, media, taps) → batched event uploads → the funnel.
@Suite struct CampaignFunnelTests {
    @Test func theFunnelEqualsWhatTheDevicesDid() async throws {
        var behaviour = DeviceBehaviour()
        // Many foreground arrivals: the extension and the app both see those pushes.
        behaviour.foregroundProbability = 0.5
        let harness = try await EndToEndHarness(devices: 40, behaviour: behaviour)
        do {
            let (messageID, message) = try await harness.sendCampaign()
            #expect(message["counts"]?["sent"] == 40)
            let tally = await harness.fleet.stop()
            #expect(harness.fleet.failures.isEmpty)
            #expect(tally.received == 40)
            #expect(tally.delivered == 40)
            #expect(tally.mediaAttached == 40)
            #expect(tally.foreground > 0)
            #expect(tally.opened + tally.actions > 0)
            #expect(tally.dismissed > 0)

            let funnel = try await harness.driver.waitForFunnel(
                messageID: messageID, expected: tally.expectedFunnel, fleet: harness.fleet, timeout: .seconds(20))
            // Delivery once per message and device, though foreground pushes were seen on two paths.
            #expect(funnel["delivered"] == 40)
            #expect(funnel["unique"]?["delivered"] == 40)
            #expect(funnel["sent"] == 40)
            let campaign = try await harness.call("GET", "/v1/campaigns/\(SampleCampaign.campaignID)/stats")
            #expect(campaign.json["delivered"] == 40)
            #expect(campaign.json["opened"] == .integer(Int64(tally.opened)))
        } catch {
            await harness.tearDown()
            throw error
        }
        await harness.tearDown()
    }

    @Test func theSameSeedDoesTheSameThings() async throws {
        var tallies: [FleetTally] = []
        for _ in 0..<2 {
            let harness = try await EndToEndHarness(devices: 12, seed: 99)
            do {
                _ = try await harness.sendCampaign()
                tallies.append(await harness.fleet.stop())
            } catch {
                await harness.tearDown()
                throw error
            }
            await harness.tearDown()
        }
        #expect(tallies[0] == tallies[1])
        #expect(tallies[0].received == 12)
    }

    @Test func eventsPostedTwiceAreCountedOnce() async throws {
        let harness = try await EndToEndHarness(devices: 10)
        do {
            let (messageID, _) = try await harness.sendCampaign()
            let tally = await harness.fleet.stop()
            let before = try await harness.driver.waitForFunnel(
                messageID: messageID, expected: tally.expectedFunnel, fleet: harness.fleet, timeout: .seconds(20))

            // What the devices uploaded, posted again as an app would after losing the first answer.
            let page = try await harness.call("GET", "/v1/events?message_id=\(messageID)")
            let events = try #require(page.json["events"]?.arrayValue)
            #expect(events.count >= 10)
            let again = try await harness.call(
                "POST", "/v1/events", key: harness.deployment.appKey, body: ["events": .array(events)])
            #expect(again.status == 200)
            let statuses = Set(again.json["receipts"]?.arrayValue?.compactMap { $0["status"]?.stringValue } ?? [])
            #expect(statuses == ["duplicate"])

            let after = try await harness.driver.message(messageID)["funnel"]
            #expect(after == before)
        } catch {
            await harness.tearDown()
            throw error
        }
        await harness.tearDown()
    }
}
