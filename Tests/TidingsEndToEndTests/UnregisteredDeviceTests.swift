import Foundation
import Testing
import TidingsModel
import TidingsServer
import TidingsTesting

@Suite struct UnregisteredDeviceTests {
    /// Apple answers 410 for an app that was deleted: the token is deactivated and later messages skip it.
    @Test func aDeviceAnswered410StopsReceiving() async throws {
        let harness = try await EndToEndHarness(devices: 6)
        do {
            let gone = harness.fleet.devices[2]
            harness.deployment.emulator.script(token: gone.token, status: 410, reason: "Unregistered")

            let (_, first) = try await harness.sendCampaign()
            #expect(first["counts"]?["sent"] == 5)
            #expect(first["counts"]?["failed_by_reason"]?["Unregistered"] == 1)

            let installation = try #require(await gone.installationID)
            let stored = try await harness.call("GET", "/v1/installations/\(installation)")
            #expect(stored.json["apns_token"] == .null)

            let (_, second) = try await harness.sendCampaign()
            #expect(second["counts"]?["sent"] == 5)
            #expect(second["counts"]?["failed"] == 0)
            let tally = await harness.fleet.stop()
            #expect(tally.received == 10)
            #expect(harness.deployment.emulator.counts["410 Unregistered"] == 1)
        } catch {
            await harness.tearDown()
            throw error
        }
        await harness.tearDown()
    }
}
