import Foundation
import Tidings
import TidingsModel
import TidingsServer
import TidingsTesting

/// A local deployment and a fleet of simulated devices on it, in a temporary directory.
struct EndToEndHarness {
    let directory: URL
    let deployment: LocalDeployment
    let fleet: DeviceFleet
    let driver: CampaignDriver

    init(
        devices: Int, seed: UInt64 = 7, behaviour: DeviceBehaviour = DeviceBehaviour(), liveActivityTypes: [String] = []
    ) async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-e2e-\(UUID())")
        var configuration = LocalDeployment.Configuration(directory: directory)
        // Retries come quickly, so a fault run finishes within the test.
        configuration.fanout.initialBackoff = .milliseconds(50)
        configuration.fanout.maximumBackoff = .milliseconds(200)
        configuration.fanout.pollInterval = .milliseconds(50)
        deployment = try LocalDeployment(configuration: configuration)
        var fleetConfiguration = DeviceFleet.Configuration(
            count: devices, serverURL: deployment.apiURL, appKey: deployment.appKey,
            directory: directory.appendingPathComponent("devices"))
        fleetConfiguration.seed = seed
        fleetConfiguration.behaviour = behaviour
        fleetConfiguration.userTokens = deployment.userTokens
        fleetConfiguration.liveActivityTypes = liveActivityTypes
        fleet = try DeviceFleet(configuration: fleetConfiguration)
        driver = CampaignDriver(apiURL: deployment.apiURL, serverKey: deployment.serverKey)
        try await fleet.registerAll()
        fleet.start(feed: InProcessPushFeed(emulator: deployment.emulator, topic: deployment.app.bundleID))
    }

    /// Sends the demo's rich campaign to `target` and waits until the devices handled every push sent.
    func sendCampaign(target: JSONValue = ["all": true]) async throws -> (messageID: String, message: JSONValue) {
        let baseline = fleet.tally
        let (messageID, _) = try await driver.send(
            SampleCampaign.body(mediaURL: deployment.mediaURL(named: "e2e.png"), target: target))
        let message = try await driver.waitUntilHandled(
            messageID: messageID, fleet: fleet, baseline: baseline, timeout: .seconds(60))
        await fleet.settle()
        return (messageID, message)
    }

    /// A call to the API with the server key (or `key`), answering the parsed body and the status.
    func call(
        _ method: String, _ path: String, key: String? = nil, body: JSONValue? = nil, headers: [String: String] = [:]
    ) async throws -> (status: Int, json: JSONValue) {
        var request = TransportRequest(
            method: method, url: URL(string: deployment.apiURL.absoluteString + path)!,
            headers: ["Authorization": "Bearer \(key ?? deployment.serverKey)"].merging(headers) { $1 })
        if let body {
            request.headers["Content-Type"] = "application/json"
            request.body = try body.serialized()
        }
        let response = try await URLSessionTransport().send(request)
        return (response.status, (try? JSONValue.parse(response.body)) ?? .null)
    }

    func tearDown() async {
        await fleet.stop()
        await deployment.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }
}
