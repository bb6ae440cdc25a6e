import Foundation
import Testing
import Tidings
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
            #expect(campaign.json["opened"] == .integer(Int64(tally.opened + tally.buttonOpens)))
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
            // Each device posts its own again, with its installation id and the secret kept in its container.
            var statuses: Set<String> = []
            var reposted = 0
            for device in harness.fleet.devices {
                let container = device.configuration.containerDirectory
                let installationID = try InstallationIdentity.loadOrCreate(in: container).installationID
                let secret = try #require(try FileSecretStore(directory: container).secret(for: installationID))
                let own = events.filter { $0["installation_id"]?.stringValue == installationID }
                if own.isEmpty { continue }
                let again = try await harness.call(
                    "POST", "/v1/events", key: harness.deployment.appKey, body: ["events": .array(own)],
                    headers: ["X-Tidings-Installation": installationID, InstallationSecret.headerName: secret.value])
                #expect(again.status == 200)
                statuses.formUnion(again.json["receipts"]?.arrayValue?.compactMap { $0["status"]?.stringValue } ?? [])
                reposted += own.count
            }
            #expect(reposted == events.count)
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

/// `tidings device simulate`'s path: the fleet long-polls the emulator over HTTP instead of in process.
@Suite struct HTTPFeedTests {
    @Test func aFleetListeningOverHTTPGetsEveryPush() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-feed-\(UUID())")
        let deployment = try LocalDeployment(configuration: .init(directory: directory))
        var configuration = DeviceFleet.Configuration(
            count: 8, serverURL: deployment.apiURL, appKey: deployment.appKey,
            directory: directory.appendingPathComponent("devices"))
        configuration.userTokens = deployment.userTokens
        let fleet = try DeviceFleet(configuration: configuration)
        do {
            try await fleet.registerAll()
            fleet.start(feed: EmulatorHTTPPushFeed(endpoint: deployment.emulatorURL, topic: deployment.app.bundleID))
            let driver = CampaignDriver(apiURL: deployment.apiURL, serverKey: deployment.serverKey)
            let (messageID, _) = try await driver.send(
                SampleCampaign.body(mediaURL: deployment.mediaURL(named: "a.png")))
            _ = try await driver.waitUntilHandled(messageID: messageID, fleet: fleet, timeout: .seconds(60))
            let tally = await fleet.stop()
            #expect(tally.received == 8)
            #expect(tally.delivered == 8)
            #expect(fleet.feedError == nil)
        } catch {
            await fleet.stop()
            await deployment.shutdown()
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        await deployment.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }

    @Test func anEmulatorThatIsNotThereIsReportedAsAFeedError() async throws {
        let feed = EmulatorHTTPPushFeed(endpoint: URL(string: "http://127.0.0.1:9")!, topic: "com.example.none")
        await #expect(throws: DeviceFleetError.self) { try await feed.next(wait: .milliseconds(10)) }
    }
}
