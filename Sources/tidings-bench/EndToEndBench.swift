import Foundation
import Tidings
import TidingsAPNsEmulator
import TidingsModel
import TidingsServer
import TidingsStore
import TidingsTesting

/// The whole system at scale: tidingsd (a separate process, on disk) sends one rich campaign through the
/// APNs emulator to N simulated devices (default 10,000; `TIDINGS_BENCH_DEVICES` changes it), each a real
/// `TidingsClient` running the service extension (media fetched from a local server) and uploading its
/// events. Reports registration rate, the time from send to every push accepted by the emulator, to every
/// device having handled it, and to every delivery event ingested, and tidingsd's peak memory (`VmHWM`).
///
/// The simulated devices' containers go to `/dev/shm` when it exists: their flash is not what is measured.
enum EndToEndBench {
    static let bundleID = "com.example.bench"

    static func run() throws {
        let devices = Int(ProcessInfo.processInfo.environment["TIDINGS_BENCH_DEVICES"] ?? "") ?? 10_000
        try APNsBench.blocking { try await measure(devices: devices) }
    }

    static func measure(devices: Int) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-e2e-bench-\(UUID())")
        let shm = URL(fileURLWithPath: "/dev/shm")
        let deviceRoot =
            (FileManager.default.fileExists(atPath: shm.path) ? shm : directory)
            .appendingPathComponent("tidings-e2e-devices-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer {
            try? FileManager.default.removeItem(at: directory)
            try? FileManager.default.removeItem(at: deviceRoot)
        }
        let provisioned = try ProvisionedApp.create(
            store: try SQLiteStore(directory: directory), dataDirectory: directory, name: "bench", bundleID: bundleID)
        let emulator = APNsEmulator(configuration: .init(keys: [provisioned.trustedKey], topics: [bundleID]))
        let (emulatorServer, emulatorURL) = try LoopbackServers.emulator(emulator, logger: .disabled())
        let (mediaServer, mediaURL) = try LoopbackServers.media(logger: .disabled())
        let tidingsd = try startTidingsd(dataDirectory: directory, apnsEndpoint: emulatorURL)
        defer {
            tidingsd.process.terminate()
            tidingsd.process.waitUntilExit()
        }

        var configuration = DeviceFleet.Configuration(
            count: devices, serverURL: tidingsd.url, appKey: provisioned.appKey, directory: deviceRoot)
        configuration.concurrency = 64
        configuration.userTokens = { userID in try provisioned.userToken(for: userID) }
        let fleet = try DeviceFleet(configuration: configuration)
        let registrationStart = ContinuousClock.now
        try await fleet.registerAll()
        let registration = ContinuousClock.now - registrationStart
        fleet.start(feed: InProcessPushFeed(emulator: emulator, topic: bundleID))

        let driver = CampaignDriver(apiURL: tidingsd.url, serverKey: provisioned.serverKey)
        let sendStart = ContinuousClock.now
        let (messageID, targets) = try await driver.send(
            SampleCampaign.body(mediaURL: mediaURL.appendingPathComponent("media/bench.png")))
        var allAccepted: Duration?
        var allHandled: Duration?
        while allHandled == nil {
            if allAccepted == nil, (emulator.counts["200"] ?? 0) >= targets {
                allAccepted = ContinuousClock.now - sendStart
            }
            if fleet.tally.received >= targets { allHandled = ContinuousClock.now - sendStart }
            if ContinuousClock.now - sendStart > .seconds(600) { throw APNsBench.Failure(description: "timed out") }
            try await Task.sleep(for: .milliseconds(20))
        }
        let tally = await fleet.stop()
        _ = try await driver.waitForFunnel(
            messageID: messageID, expected: tally.expectedFunnel, fleet: fleet, timeout: .seconds(300))
        let allIngested = ContinuousClock.now - sendStart
        let peakKiB = Measure.processMemoryKiB(pid: tidingsd.process.processIdentifier, field: "VmHWM")

        print(
            "e2e: \(devices) simulated devices (real TidingsClient each), tidingsd as its own process, one rich campaign"
        )
        Measure.report("e2e.registration_per_second", Double(devices) / registration.seconds, "/s")
        Measure.report("e2e.send_to_all_accepted_by_emulator", (allAccepted ?? allHandled!).seconds, "s")
        Measure.report("e2e.send_to_all_devices_handled", allHandled!.seconds, "s")
        Measure.report("e2e.send_to_all_events_ingested", allIngested.seconds, "s")
        Measure.report("e2e.tidingsd_peak_memory", Double(peakKiB) / 1024, "MiB")
        print(
            "e2e: funnel delivered \(tally.delivered), opened \(tally.opened), actions \(tally.actions), "
                + "dismissed \(tally.dismissed); \(fleet.failures.count) device failures")
        await emulatorServer.shutdown()
        await mediaServer.shutdown()
    }

    /// Starts `executable` (default: the `tidingsd` built beside this binary) and reads its address from the
    /// banner.
    static func startTidingsd(
        dataDirectory: URL, apnsEndpoint: URL, extraArguments: [String] = [], executable: URL? = nil
    ) throws -> (process: Process, url: URL) {
        let process = Process()
        process.executableURL =
            executable
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("tidingsd")
        process.arguments =
            [
                "--data-dir", dataDirectory.path, "--listen", "127.0.0.1:0", "--apns-endpoint",
                apnsEndpoint.absoluteString,
                "--insecure-media-host", "127.0.0.1", "--log-level", "error",
            ] + extraArguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var banner = ""
        while true {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { throw APNsBench.Failure(description: "tidingsd exited: \(banner)") }
            banner += String(decoding: chunk, as: UTF8.self)
            if let range = banner.range(of: #"http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression),
                let url = URL(string: String(banner[range]))
            {
                return (process, url)
            }
        }
    }
}
