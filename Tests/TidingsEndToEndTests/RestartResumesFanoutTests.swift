import Foundation
import Testing
import TidingsAPNsEmulator
import TidingsModel
import TidingsServer
import TidingsStore
import TidingsTesting

@Suite struct RestartResumesFanoutTests {
    static let deviceCount = 120
    static let pushesInFlight = 2
    /// The pushes the killed process can have sent without recording: those in flight, and those answered while
    /// their outcomes waited for the batch write (`FanoutWorker.Configuration.completionDelay`, 25 ms, plus the
    /// commit): with an APNs answering after 25 ms or more, at most two more rounds of the window.
    static let killedProcessWindow = 3 * pushesInFlight

    /// tidingsd is SIGKILLed in the middle of a fan-out and started again on the same store: the message
    /// reaches every device, pushes are resent only for the few that were in flight, and the funnel counts
    /// each device once. The lease is the default five minutes: the restarted process holds the store's
    /// sender lock, so it resumes the dead one's claims at once instead of waiting for them to expire.
    @Test func aKilledTidingsdResumesItsFanout() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-restart-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let dataDirectory = directory.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)

        let provisioned = try ProvisionedApp.create(
            store: try SQLiteStore(directory: dataDirectory), dataDirectory: dataDirectory, name: "restart",
            bundleID: "com.example.restart")
        let (appKey, serverKey) = (provisioned.appKey, provisioned.serverKey)

        // A slow Apple, so the kill lands mid fan-out.
        let emulator = APNsEmulator(
            configuration: .init(keys: [provisioned.trustedKey], topics: ["com.example.restart"]))
        let emulatorHandler = emulator.handler(logger: .disabled())
        let (emulatorServer, emulatorURL) = try LoopbackServers.serve(
            { request in
                if request.path.hasPrefix("/3/") { try await Task.sleep(for: .milliseconds(25)) }
                return try await emulatorHandler(request)
            }, logger: .disabled())

        let arguments = [
            "--data-dir", dataDirectory.path, "--apns-endpoint", emulatorURL.absoluteString,
            "--fanout-in-flight", String(Self.pushesInFlight), "--log-level", "error",
        ]
        var server = try TidingsdProcess(arguments: arguments + ["--listen", "127.0.0.1:0"])
        let apiURL = try #require(server.url)
        defer { server.kill() }

        var fleetConfiguration = DeviceFleet.Configuration(
            count: Self.deviceCount, serverURL: apiURL, appKey: appKey,
            directory: directory.appendingPathComponent("devices"))
        fleetConfiguration.behaviour.openProbability = 0
        fleetConfiguration.behaviour.dismissProbability = 0
        fleetConfiguration.userTokens = { userID in try provisioned.userToken(for: userID) }
        let fleet = try DeviceFleet(configuration: fleetConfiguration)
        try await fleet.registerAll()
        fleet.start(feed: InProcessPushFeed(emulator: emulator, topic: "com.example.restart"))

        let driver = CampaignDriver(apiURL: apiURL, serverKey: serverKey)
        let (messageID, targets) = try await driver.send(["target": ["all": true], "content": ["title": "Resume"]])
        #expect(targets == Self.deviceCount)
        while (emulator.counts["200"] ?? 0) < 20 { try await Task.sleep(for: .milliseconds(10)) }
        server.kill()
        let acceptedBeforeKill = emulator.counts["200"] ?? 0
        #expect(acceptedBeforeKill < Self.deviceCount, "the kill must land mid fan-out")

        server = try TidingsdProcess(arguments: arguments + ["--listen", "127.0.0.1:\(apiURL.port ?? 0)"])
        let message = try await driver.waitUntilHandled(messageID: messageID, fleet: fleet, timeout: .seconds(60))
        #expect(message["state"] == "done")
        #expect(message["counts"]?["sent"] == .integer(Int64(Self.deviceCount)))
        let tally = await fleet.stop()
        // Every device got the message; a resend is possible only for the killed process's unrecorded pushes.
        #expect(tally.delivered == Self.deviceCount)
        #expect(tally.repeats <= Self.killedProcessWindow, "repeats: \(tally.repeats)")
        #expect(tally.received == Self.deviceCount + tally.repeats)
        let funnel = try await driver.waitForFunnel(
            messageID: messageID, expected: tally.expectedFunnel, fleet: fleet, timeout: .seconds(20))
        #expect(funnel["delivered"] == .integer(Int64(Self.deviceCount)))

        server.kill()
        await emulatorServer.shutdown()
    }
}
