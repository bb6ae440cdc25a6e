import Foundation
import Testing
import TidingsAPNsEmulator
import TidingsModel
import TidingsPostgres
import TidingsServer
import TidingsStore
import TidingsStoreTesting
import TidingsTesting

@Suite struct ClusterFanoutTests {
    /// 300 devices in `make test`; `TIDINGS_CLUSTER_DEVICES=50000 TIDINGS_CLUSTER_IN_FLIGHT=16` is the
    /// full-size run docs/postgres.md records.
    static let environment = ProcessInfo.processInfo.environment
    static let deviceCount = Int(environment["TIDINGS_CLUSTER_DEVICES"] ?? "") ?? 300
    static let pushesInFlight = Int(environment["TIDINGS_CLUSTER_IN_FLIGHT"] ?? "") ?? 2
    /// The pushes the killed instance can have sent without recording: those in flight, and those answered
    /// while their outcomes waited for the batch write (`FanoutWorker.Configuration.completionDelay`, 25 ms,
    /// plus the commit): with an APNs answering after 40 ms or more, at most two more rounds of the window.
    static let killedInstanceWindow = 3 * pushesInFlight
    /// How long the emulator waits before answering each push: a slow Apple, so the kills land mid fan-out.
    static let apnsDelay = Duration.milliseconds(Int(environment["TIDINGS_CLUSTER_APNS_DELAY_MS"] ?? "") ?? 40)

    /// Three tidingsd processes share one PostgreSQL database and send one campaign. One is SIGKILLed a tenth
    /// of the way through, another is stopped with SIGTERM a little later; the third finishes. Every device
    /// gets the message; the only pushes sent twice are the killed instance's unrecorded ones (`killedInstanceWindow`), and the
    /// funnel counts each device once. The lease is the default five minutes, so finishing in time proves the
    /// killed instance's claims came back through its silent heartbeat (`--instance-timeout 3`).
    @Test func aCampaignSurvivesOneInstanceKilledAndAnotherStopped() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-cluster-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let dataDirectory = directory.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        let connection = try StoreBackend.postgresConfiguration().connectionString
        // The APNs key lands in the shared data directory, which every instance reads its credentials from.
        let provisioned = try ProvisionedApp.create(
            store: try PostgresStore(connectionString: connection), dataDirectory: dataDirectory, name: "cluster",
            bundleID: "com.example.cluster")

        // A slow Apple, so the kills land mid fan-out.
        let emulator = APNsEmulator(
            configuration: .init(keys: [provisioned.trustedKey], topics: ["com.example.cluster"]))
        let emulatorHandler = emulator.handler(logger: .disabled())
        let (emulatorServer, emulatorURL) = try LoopbackServers.serve(
            { request in
                if request.path.hasPrefix("/3/") { try await Task.sleep(for: Self.apnsDelay) }
                return try await emulatorHandler(request)
            }, logger: .disabled())

        let arguments = [
            "--store", connection, "--data-dir", dataDirectory.path, "--apns-endpoint", emulatorURL.absoluteString,
            "--fanout-in-flight", String(Self.pushesInFlight), "--instance-timeout", "3", "--log-level", "error",
            "--listen", "127.0.0.1:0",
        ]
        let instances = try (0..<3).map { _ in try TidingsdProcess(arguments: arguments) }
        defer { for instance in instances { instance.kill() } }
        let (killed, stopped, survivor) = (instances[0], instances[1], instances[2])
        let survivorURL = try #require(survivor.url)

        // The devices talk to the instance that stays (behind a load balancer they would reach any live one);
        // the campaign is sent through the one that is stopped: the API works on any instance.
        var fleetConfiguration = DeviceFleet.Configuration(
            count: Self.deviceCount, serverURL: survivorURL, appKey: provisioned.appKey,
            directory: directory.appendingPathComponent("devices"))
        fleetConfiguration.behaviour.openProbability = 0
        fleetConfiguration.behaviour.dismissProbability = 0
        fleetConfiguration.userTokens = { userID in try provisioned.userToken(for: userID) }
        fleetConfiguration.concurrency = Self.deviceCount > 1000 ? 64 : 16
        let fleet = try DeviceFleet(configuration: fleetConfiguration)
        let registrationStart = ContinuousClock.now
        try await fleet.registerAll()
        let registration = ContinuousClock.now - registrationStart
        fleet.start(feed: InProcessPushFeed(emulator: emulator, topic: "com.example.cluster"))

        let driver = CampaignDriver(apiURL: try #require(stopped.url), serverKey: provisioned.serverKey)
        let sendStart = ContinuousClock.now
        let (messageID, _) = try await driver.send(["target": ["all": true], "content": ["title": "Cluster"]])
        while (emulator.counts["200"] ?? 0) < Self.deviceCount / 10 { try await Task.sleep(for: .milliseconds(5)) }
        killed.kill()
        while (emulator.counts["200"] ?? 0) < Self.deviceCount / 5 { try await Task.sleep(for: .milliseconds(5)) }
        stopped.terminate()
        #expect((emulator.counts["200"] ?? 0) < Self.deviceCount, "the stops must land mid fan-out")

        let survivorDriver = CampaignDriver(apiURL: survivorURL, serverKey: provisioned.serverKey)
        let message = try await survivorDriver.waitUntilHandled(
            messageID: messageID, fleet: fleet, timeout: .seconds(90 + Self.deviceCount / 50))
        #expect(message["state"] == "done")
        // The answer to the send counts only the first chunk; the audience is resolved in the background.
        #expect(message["counts"]?["targets"] == .integer(Int64(Self.deviceCount)), "\(message["counts"] ?? .null)")
        #expect(message["counts"]?["sent"] == .integer(Int64(Self.deviceCount)), "\(message["counts"] ?? .null)")
        let tally = await fleet.stop()
        // Every device got the message; only the killed instance's pushes in flight may have gone twice.
        #expect(tally.delivered == Self.deviceCount)
        #expect(tally.repeats <= Self.killedInstanceWindow, "repeats: \(tally.repeats)")
        #expect(tally.received == Self.deviceCount + tally.repeats)
        let funnel = try await survivorDriver.waitForFunnel(
            messageID: messageID, expected: tally.expectedFunnel, fleet: fleet, timeout: .seconds(20))
        #expect(funnel["delivered"] == .integer(Int64(Self.deviceCount)))
        if Self.deviceCount > 1000 {
            print(
                "cluster: \(Self.deviceCount) devices registered in \(Int(registration.seconds)) s; campaign handled "
                    + "by every device in \(Int((ContinuousClock.now - sendStart).seconds)) s; \(tally.repeats) "
                    + "pushes sent twice (the killed instance's window: \(Self.killedInstanceWindow))")
        }

        // The stopped instance retired itself; the killed one was forgotten once seen silent.
        let store = try PostgresStore(connectionString: connection)
        #expect(try store.instanceHeartbeats().count == 1)
        #expect(try store.lease(name: SchedulerLeadership.leaseName).map { _ in true } ?? false)
        survivor.terminate()
        #expect(try store.instanceHeartbeats().isEmpty)
        await emulatorServer.shutdown()
    }
}
