import Foundation
import Testing
import Tidings
import TidingsModel
import TidingsServer
import TidingsTesting

/// Personalisation over loopback: two devices running the real SDK set their own attributes, one templated
/// campaign goes out through fan-out and signed APNs requests, and each device receives its own text.
@Suite struct PersonalisedPushTests {
    @Test func twoDevicesWithDifferentAttributesReceiveDifferentlyRenderedPushes() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-personal-\(UUID())")
        var configuration = LocalDeployment.Configuration(directory: directory)
        configuration.fanout.pollInterval = .milliseconds(50)
        let deployment = try LocalDeployment(configuration: configuration)
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            var tokens: [String: String] = [:]
            for (index, name) in [(1, "Aiko"), (2, nil as String?)] {
                let registrar = try InstallationRegistrar(
                    configuration: .init(
                        endpoint: deployment.apiURL, appKey: deployment.appKey,
                        containerDirectory: directory.appendingPathComponent("device-\(index)")))
                let token = [UInt8](repeating: UInt8(index), count: 32)
                await registrar.setPermission(.authorized)
                await registrar.setEnvironment(.production)
                try await registrar.setAPNsToken(token)
                if let name { try await registrar.setAttribute("first_name", .string(name)) }
                try await registrar.setAttribute("points", .number(Double(index * 100)))
                guard case .sent = await registrar.sync() else {
                    Issue.record("device \(index) did not register")
                    await deployment.shutdown()
                    return
                }
                tokens[registrar.identity.installationID] = token.map { String(format: "%02x", $0) }.joined()
            }
            let driver = CampaignDriver(apiURL: deployment.apiURL, serverKey: deployment.serverKey)
            let (messageID, _) = try await driver.send(
                [
                    "target": ["all": true],
                    "content": [
                        "title": #"Hi {{attributes.first_name | default: "there"}}"#,
                        "body": #"{{attributes.points | default: "0"}} points"#,
                    ],
                ])
            var state: JSONValue = .null
            let start = ContinuousClock.now
            while state != "done" && ContinuousClock.now - start < .seconds(30) {
                state = try await driver.message(messageID)["state"] ?? .null
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(state == "done")
            var received: [String] = []
            for token in tokens.values.sorted() {
                for notification in await deployment.emulator.collect(token: token) {
                    let alert = notification.payload["aps"]?["alert"]
                    received.append(
                        "\(alert?["title"]?.stringValue ?? "-") / \(alert?["body"]?.stringValue ?? "-")")
                }
            }
            #expect(received == ["Hi Aiko / 100 points", "Hi there / 200 points"])
        } catch {
            await deployment.shutdown()
            throw error
        }
        await deployment.shutdown()
    }
}
