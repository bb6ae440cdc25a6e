import Foundation
import TidingsModel
import TidingsTesting

/// The demo's Live Activity: an order-tracking activity started on every device through its push-to-start
/// token, updated, then ended, each step checked on the devices themselves (docs/live-activities.md).
struct DemoLiveActivity {
    static let attributesType = "DeliveryAttributes"
    static let activityID = "order-1042"

    /// One step: what tidingsd sent and how many devices then showed the expected state.
    struct Step {
        var event: String
        var sent: Int
        var devices: Int
        var status: String
    }

    var steps: [Step] = []
    /// Update tokens tidingsd still holds after the end (the SDK removes them when the activity ends).
    var tokensLeft = 0
    var failure: String?

    var succeeded: Bool { failure == nil && steps.count == 3 && tokensLeft == 0 }

    /// Runs start → update → end on `fleet`, whose feed must be running.
    static func run(driver: CampaignDriver, fleet: DeviceFleet, timeout: Duration) async -> DemoLiveActivity {
        var outcome = DemoLiveActivity()
        let count = fleet.devices.count
        let now = Int64(Date().timeIntervalSince1970)
        let plan: [(event: String, status: String, eta: Int64, extra: [String: JSONValue])] = [
            (
                "start", "preparing", 25,
                [
                    "target": ["all": true], "attributes_type": .string(attributesType),
                    "attributes": ["orderNumber": "1042"],
                    "alert": ["title": "Order 1042", "body": "Follow it on your Lock Screen"],
                ]
            ),
            ("update", "on the way", 10, ["stale_date": .integer(now + 1800)]),
            ("end", "delivered", 0, ["dismissal_date": .integer(now + 900)]),
        ]
        do throws(DeviceFleetError) {
            for (offset, step) in plan.enumerated() {
                var body: [String: JSONValue] = [
                    "event": .string(step.event), "activity_id": .string(activityID),
                    "content_state": ["status": .string(step.status), "eta_minutes": .integer(step.eta)],
                    "timestamp": .integer(now + Int64(offset)),
                ]
                // A start reaches push-to-start tokens through its target; later steps the activity's own tokens.
                body.merge(step.extra) { $1 }
                let answer = try await driver.sendLiveActivity(.object(body))
                let ended = step.event == "end"
                let shown = try await driver.waitForLiveActivity(
                    id: activityID, on: count, fleet: fleet, timeout: timeout
                ) { ($0.phase == .ended) == ended && $0.contentState["status"]?.stringValue == step.status }
                if step.event == "start" {
                    // Updates go to the tokens the devices report for their new activities: wait for all.
                    _ = try await driver.waitForLiveActivityTokens(id: activityID, count: count, timeout: timeout)
                }
                outcome.steps.append(
                    Step(
                        event: step.event, sent: Int(answer["sent"]?.integerValue ?? 0), devices: shown.count,
                        status: step.status))
            }
            outcome.tokensLeft = try await driver.waitForLiveActivityTokens(id: activityID, count: 0, timeout: timeout)
                .count
        } catch {
            outcome.failure = error.description
        }
        return outcome
    }

    func text() -> [String] {
        var lines = [
            "Live Activity \"\(Self.activityID)\" (\(Self.attributesType)), started through push-to-start tokens:"
        ]
        for step in steps {
            lines.append(
                "  " + step.event.padding(toLength: 8, withPad: " ", startingAt: 0)
                    + "\(step.sent) pushes → \(step.devices) devices show \"\(step.status)\"")
        }
        if let failure {
            lines.append("  FAILED: \(failure)")
        } else if tokensLeft == 0 {
            lines.append("  the devices' SDKs removed the ended activity's tokens from tidingsd")
        } else {
            lines.append("  FAILED: tidingsd still holds \(tokensLeft) update tokens of the ended activity")
        }
        return lines
    }

    var json: JSONValue {
        var object: [String: JSONValue] = [
            "activity_id": .string(Self.activityID), "tokens_left": .integer(Int64(tokensLeft)),
            "steps": .array(
                steps.map {
                    [
                        "event": .string($0.event), "sent": .integer(Int64($0.sent)),
                        "devices": .integer(Int64($0.devices)), "status": .string($0.status),
                    ]
                }),
        ]
        if let failure { object["failure"] = .string(failure) }
        return .object(object)
    }
}
