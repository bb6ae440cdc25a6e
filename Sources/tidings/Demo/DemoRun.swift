import Foundation
import Tidings
import TidingsModel
import TidingsServer
import TidingsTesting

/// One demo run against a started ``LocalDeployment``: devices, campaign, funnel.
struct DemoRun {
    let deployment: LocalDeployment
    let options: DemoCommand.Options

    func run() async throws -> Int32 {
        let started = ContinuousClock.now
        Console.progress(
            line:
                """
                Tidings demo: the whole system on this machine
                  tidingsd       \(deployment.apiURL.absoluteString)  (SQLite store in \(deployment.configuration.directory.path))
                  APNs emulator  \(deployment.emulatorURL.absoluteString)  (trusts the app's ES256 provider key)
                  media server   \(deployment.mediaURL.absoluteString)
                  app            "\(deployment.app.name)" (\(deployment.app.bundleID)) with an app key and a server key
                  identity       verification required: devices log in with user tokens its backend signs (ES256)

                """)

        var fleetConfiguration = DeviceFleet.Configuration(
            count: options.devices, serverURL: deployment.apiURL, appKey: deployment.appKey,
            directory: deployment.configuration.directory.appendingPathComponent("devices"))
        fleetConfiguration.seed = options.seed
        fleetConfiguration.userTokens = deployment.userTokens
        fleetConfiguration.liveActivityTypes = [DemoLiveActivity.attributesType]
        let fleet = try DeviceFleet(configuration: fleetConfiguration)
        var mark = ContinuousClock.now
        Console.progress(
            "[1/7] registering \(options.devices) simulated devices (each a TidingsClient with its own store) ")
        try await fleet.registerAll { done in
            if done % max(1, options.devices / 10) == 0 { Console.progress(".") }
        }
        Console.progress(line: " \(options.devices) registered in \(Self.elapsed(since: mark))")
        fleet.start(feed: InProcessPushFeed(emulator: deployment.emulator, topic: deployment.app.bundleID))

        let driver = CampaignDriver(apiURL: deployment.apiURL, serverKey: deployment.serverKey)
        mark = ContinuousClock.now
        let campaign = SampleCampaign.splitBody(mediaURL: deployment.mediaURL(named: "picks.png"))
        Console.progress("[2/7] a dry run first: what the campaign would do, sending nothing ")
        let dryRun = try await driver.dryRun(campaign)
        let wouldSend = dryRun["reach"]?["would_send"]?.integerValue ?? 0
        Console.progress(line: DemoDryRun.summary(of: dryRun))
        Console.progress(
            "      sending campaign \"\(SampleCampaign.campaignID)\" (image, two buttons, a deep link; "
                + "two variants in three languages, 10% control) ")
        let (messageID, targets) = try await driver.send(campaign)
        Console.progress(line: "message \(messageID) to \(targets) installations")

        Console.progress("[3/7] fan-out through the APNs emulator to the devices ")
        let message = try await driver.waitUntilHandled(
            messageID: messageID, fleet: fleet, timeout: options.timeout)
        let tally = await fleet.stop()
        let sent = Int(message["counts"]?["sent"]?.integerValue ?? 0)
        Console.progress(line: "\(sent) sent, \(tally.received) handled by devices in \(Self.elapsed(since: mark))")
        // Nothing changes between the dry run and the send, so the send must do exactly what it said.
        var dryRunMismatch: String?
        if Int64(sent) != wouldSend {
            dryRunMismatch = "the dry run said \(wouldSend) would be sent; \(sent) were"
            Console.progress(line: "      " + (dryRunMismatch ?? ""))
        }

        mark = ContinuousClock.now
        Console.progress("[4/7] waiting for the devices' events ")
        var funnel: JSONValue
        var matches = true
        var mismatch: String?
        do {
            funnel = try await driver.waitForFunnel(
                messageID: messageID, expected: tally.expectedFunnel, fleet: fleet, timeout: .seconds(30))
            // Each device is one person and buys at most once: every purchase is one conversion.
            let purchases = Int64(tally.purchases)
            funnel =
                try await driver.waitForMessage(messageID, fleet: fleet, timeout: .seconds(30)) { message in
                    let converted = message["funnel"]?["conversion"]?["converted"]?.integerValue ?? 0
                    return converted == purchases
                        ? nil : "tidingsd counts \(converted) conversions; the devices tracked \(purchases) purchases"
                }["funnel"] ?? .null
            Console.progress(line: "all in after \(Self.elapsed(since: mark))\n")
        } catch {
            matches = false
            mismatch = error.description
            funnel = (try? await driver.message(messageID))?["funnel"] ?? .null
            Console.progress(line: "incomplete: \(error.description)\n")
        }

        mark = ContinuousClock.now
        Console.progress("[5/7] a Live Activity: start, update and end on every device ")
        fleet.start(feed: InProcessPushFeed(emulator: deployment.emulator, topic: deployment.app.bundleID))
        let liveActivity = await DemoLiveActivity.run(driver: driver, fleet: fleet, timeout: .seconds(30))
        await fleet.stop()
        Console.progress(
            line: (liveActivity.succeeded ? "done" : "incomplete") + " in \(Self.elapsed(since: mark))\n")
        mark = ContinuousClock.now
        Console.progress("[6/7] a local-time message: due at 09:00 in each zone, then cancelled ")
        let localTime = await DemoLocalTime.run(driver: driver, targets: options.devices)
        Console.progress(
            line: (localTime.succeeded ? "done" : "incomplete") + " in \(Self.elapsed(since: mark))\n")
        mark = ContinuousClock.now
        Console.progress("[7/7] an abandoned-cart journey: add to cart, wait, reminder, wait, last call ")
        fleet.start(feed: InProcessPushFeed(emulator: deployment.emulator, topic: deployment.app.bundleID))
        let journey = await DemoJourney.run(driver: driver, fleet: fleet, timeout: .seconds(40))
        await fleet.stop()
        Console.progress(line: (journey.succeeded ? "done" : "incomplete") + " in \(Self.elapsed(since: mark))\n")
        let failures = fleet.failures
        if !failures.isEmpty || !liveActivity.succeeded || !localTime.succeeded || !journey.succeeded {
            matches = false
        }
        if !journey.succeeded, mismatch == nil {
            mismatch = journey.failure ?? journey.outcome?.mismatches.first
        }
        if let dryRunMismatch {
            matches = false
            mismatch = mismatch ?? dryRunMismatch
        }

        // A console sign-in made for this run only, shown once below.
        var consolePassword: String?
        if options.keep {
            let password = OperatorAdministration.generatePassword()
            try OperatorAdministration(store: deployment.store).create(
                name: DemoReport.consoleOperator, role: .admin, password: password)
            consolePassword = password
        }
        let report = DemoReport(
            messageID: messageID, targets: targets, message: message, funnel: funnel, tally: tally,
            liveActivity: liveActivity, localTime: localTime, journey: journey,
            failures: failures, matches: matches, mismatch: mismatch, seconds: (ContinuousClock.now - started).seconds,
            audience: DemoReport.audience(of: fleet.devices), deployment: deployment, options: options,
            consolePassword: consolePassword)
        Console.write(options.json ? report.json() : report.text())

        if options.keep {
            fleet.start(feed: InProcessPushFeed(emulator: deployment.emulator, topic: deployment.app.bundleID))
            Console.progress(line: report.keepInstructions())
            await InterruptSignal.wait()
            Console.progress(line: "\nstopping")
            _ = await fleet.stop()
        }
        return matches ? ExitCode.success : ExitCode.failure
    }

    static func elapsed(since start: ContinuousClock.Instant) -> String {
        String(format: "%.2f s", (ContinuousClock.now - start).seconds)
    }
}
