import Foundation
import TidingsModel
import TidingsServer
import TidingsTesting

/// What a demo run found, for people (``text()``) and machines (``json()``).
struct DemoReport {
    var messageID: String
    var targets: Int
    /// `GET /v1/messages/{id}` once fan-out finished.
    var message: JSONValue
    var funnel: JSONValue
    var tally: FleetTally
    var liveActivity: DemoLiveActivity
    var localTime: DemoLocalTime
    var journey: DemoJourney
    var failures: [DeviceFleet.Failure]
    var matches: Bool
    var mismatch: String?
    var seconds: Double
    /// Where the devices' people live (``audience(of:)``).
    var audience: String
    let deployment: LocalDeployment
    var options: DemoCommand.Options
    /// The one-time password of the console operator ``consoleOperator``, made with `--keep`.
    var consolePassword: String?

    static let consoleOperator = "demo"

    var consoleURL: String { deployment.apiURL.appendingPathComponent("console/").absoluteString }

    /// Funnel stages in the order a person reads them, with the device-side count when there is one.
    private var rows: [(stage: String, server: Int, devices: Int?)] {
        let expected = tally.expectedFunnel
        func count(_ stage: String) -> Int { Int(funnel[stage]?.integerValue ?? 0) }
        return [("targets", targets, nil), ("sent", count("sent"), nil), ("failed", count("failed"), nil)]
            + ["delivered", "opened", "actions", "deeplink_open", "link_open", "dismissed"].map {
                ($0, count($0), expected[$0])
            }
    }

    /// The fleet's languages, most spoken first, and the span of its time zones' offsets now.
    static func audience(of devices: [SimulatedDevice]) -> String {
        let contexts = devices.map { $0.configuration.deviceContextProvider.currentContext() }
        let languages = Dictionary(grouping: contexts.compactMap(\.language), by: { $0 }).mapValues(\.count)
            .sorted { ($0.value, $1.key) > ($1.value, $0.key) }
        let zones = Set(contexts.compactMap(\.timezone)).compactMap(TimeZone.init(identifier:))
            .sorted { $0.secondsFromGMT() < $1.secondsFromGMT() }
        func offset(_ zone: TimeZone) -> String {
            let minutes = zone.secondsFromGMT() / 60
            let sign = minutes < 0 ? "−" : "+"
            let rest = abs(minutes) % 60
            return "UTC\(sign)\(abs(minutes) / 60)" + (rest == 0 ? "" : ":\(rest)")
        }
        var text = languages.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        if let first = zones.first, let last = zones.last {
            text += "; \(zones.count) time zones, \(offset(first)) (\(first.identifier)) to \(offset(last)) "
            text += "(\(last.identifier))"
        }
        return text
    }

    func text() -> String {
        var lines = ["Funnel of message \(messageID) (campaign \(SampleCampaign.campaignID))"]
        lines.append("  " + "stage".padding(toLength: 16, withPad: " ", startingAt: 0) + "tidingsd   devices did")
        for row in rows {
            let server = String(row.server)
            var line = "  " + row.stage.padding(toLength: 16, withPad: " ", startingAt: 0)
            line += String(repeating: " ", count: max(0, 8 - server.count)) + server
            if let devices = row.devices {
                let text = String(devices)
                line += String(repeating: " ", count: max(0, 14 - text.count)) + text
            }
            lines.append(line)
        }
        let rates = funnel["rates"] ?? .null
        func percent(_ key: String) -> String {
            guard case .double(let value)? = rates[key] else { return "-" }
            return String(format: "%.1f%%", value * 100)
        }
        lines.append(
            "  rates: open \(percent("open_rate")), click \(percent("click_rate")), "
                + "action \(percent("action_rate")), dismiss \(percent("dismiss_rate"))")
        lines.append(
            "  devices: \(tally.mediaAttached) showed the image, \(tally.foreground) were in the foreground "
                + "(delivery still counted once)")
        lines.append(
            "  purchases: \(tally.purchases) tracked by the apps after the push, "
                + "\(funnel["conversion"]?["converted"]?.integerValue ?? 0) conversions counted by tidingsd")
        lines.append("  people: " + audience)
        let breakdown = BreakdownText.render(funnel: funnel)
        if !breakdown.isEmpty {
            lines.append("")
            lines.append("By variant and language (tidings stats \(messageID)):")
            lines += breakdown.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }
        }
        lines.append("")
        lines += liveActivity.text()
        lines.append("")
        lines += localTime.text()
        lines.append("")
        lines += journey.text()
        lines.append("")
        if matches {
            lines.append(
                "The server's funnel equals what the \(options.devices) devices did. "
                    + String(format: "(%.1f s in all)", seconds))
        } else {
            lines.append("MISMATCH: " + (mismatch ?? "some devices failed"))
            for failure in failures.prefix(5) { lines.append("  device \(failure.deviceIndex): \(failure.message)") }
            if failures.count > 5 { lines.append("  ... and \(failures.count - 5) more") }
        }
        lines += [
            "",
            "Try next:",
            "  tidings demo --devices 1000     more devices",
            "  tidings demo --seed 7           other people, other taps",
            "  tidings demo --keep             keep it running and send your own pushes",
            "  tidings live-activity --help    start, update and end Live Activities yourself",
            "  tidings payload inspect Examples/payloads/braze.json",
            "",
        ]
        return lines.joined(separator: "\n")
    }

    func json() -> String {
        var object: [String: JSONValue] = [
            "message_id": .string(messageID), "campaign_id": .string(SampleCampaign.campaignID),
            "devices": .integer(Int64(options.devices)), "seed": .integer(Int64(bitPattern: options.seed)),
            "targets": .integer(Int64(targets)), "counts": message["counts"] ?? .null, "funnel": funnel,
            "devices_did": tally.json, "live_activity": liveActivity.json, "local_time": localTime.json,
            "journey": journey.json,
            "matches": .bool(matches),
            "seconds": .double((seconds * 1000).rounded() / 1000), "audience": .string(audience),
            "failures": .array(
                failures.map { ["device": .integer(Int64($0.deviceIndex)), "message": .string($0.message)] }),
        ]
        if let mismatch { object["mismatch"] = .string(mismatch) }
        if options.keep {
            object["server"] = [
                "api": .string(deployment.apiURL.absoluteString),
                "apns_emulator": .string(deployment.emulatorURL.absoluteString),
                "server_key": .string(deployment.serverKey), "app_key": .string(deployment.appKey),
                "data_directory": .string(deployment.configuration.directory.path),
                "console": .string(consoleURL), "console_operator": .string(Self.consoleOperator),
                "console_password": consolePassword.map(JSONValue.string) ?? .null,
            ]
        }
        let text = (try? JSONValue.object(object).serializedString(sortedKeys: true, prettyPrinted: true)) ?? "{}"
        return text + "\n"
    }

    func keepInstructions() -> String {
        """

        Still running; Ctrl-C stops it (the data stays in \(deployment.configuration.directory.path)).
        The \(options.devices) simulated devices keep receiving, tapping and reporting:

          console  \(consoleURL)
                   sign in as \(Self.consoleOperator) with \(consolePassword ?? "(none)") (an admin; shown once)

          export TIDINGS_SERVER=\(deployment.apiURL.absoluteString)
          export TIDINGS_SERVER_KEY=\(deployment.serverKey)
          tidings send --all --title "Hello" --body "From the terminal" --wait
          tidings stats \(messageID)
          tidings devices list
          curl -s $TIDINGS_SERVER/metrics | grep tidings_

        The app key an SDK would embed: \(deployment.appKey)
        """
    }
}
