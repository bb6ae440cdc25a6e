import Foundation
import TidingsModel
import TidingsTesting

/// The demo's journey: docs/journeys.md's abandoned cart with waits of seconds, played by some of the demo's
/// devices (add to cart; buy at once, after the reminder, through the backend, or never), then each step's
/// numbers from tidingsd, which must equal what the devices did.
struct DemoJourney {
    var outcome: AbandonedCartJourney.Outcome?
    var failure: String?

    var succeeded: Bool { failure == nil && outcome?.mismatches.isEmpty == true }

    /// Plays the journey on `fleet`, which must be started.
    static func run(driver: CampaignDriver, fleet: DeviceFleet, timeout: Duration) async -> DemoJourney {
        let cast = AbandonedCartJourney.Cast.standard(devices: fleet.devices.count)
        do throws(DeviceFleetError) {
            let outcome = try await AbandonedCartJourney(driver: driver, fleet: fleet, cast: cast).run(timeout: timeout)
            return DemoJourney(outcome: outcome)
        } catch {
            return DemoJourney(failure: error.description)
        }
    }

    /// Who did what, each step's numbers, and what differs.
    func text() -> [String] {
        guard let outcome else { return ["The abandoned-cart journey did not finish: \(failure ?? "no outcome")"] }
        let journey = outcome.journey
        let columns = [("entered", 8), ("sent", 6), ("delivered", 11), ("opened", 8), ("converted", 11)]
        var lines = [
            "An abandoned-cart journey (\(outcome.journeyID)), waits of \(AbandonedCartJourney.pauseSeconds) s "
                + "and \(AbandonedCartJourney.lastCallSeconds) s: \(journey["entered"]?.integerValue ?? 0) added to "
                + "cart, \(outcome.convertedAfterReminder.count) bought after the reminder, "
                + "\(outcome.neverBought.count) never; exited: \(Self.reasons(journey["exited"]))",
            "  STEP     " + columns.map { Self.right($0.0.uppercased(), $0.1) }.joined() + "  EXITED",
        ]
        for step in journey["steps"]?.arrayValue ?? [] {
            func number(_ name: String) -> String { step[name]?.integerValue.map(String.init) ?? "-" }
            let exits = Self.reasons(step["exited"])
            lines.append(
                "  " + (step["id"]?.stringValue ?? "?").padding(toLength: 9, withPad: " ", startingAt: 0)
                    + columns.map { Self.right(number($0.0), $0.1) }
                    .joined() + (exits.isEmpty ? "" : "  " + exits))
        }
        if outcome.mismatches.isEmpty {
            lines.append("  every step equals what the devices did, and no one was shown a push after buying")
        } else {
            lines.append("  differs from what the devices did:")
            lines += outcome.mismatches.map { "    " + $0 }
        }
        return lines
    }

    var json: JSONValue {
        guard let outcome else { return ["succeeded": false, "failure": failure.map(JSONValue.string) ?? .null] }
        return [
            "journey_id": .string(outcome.journeyID), "succeeded": .bool(succeeded),
            "entered": outcome.journey["entered"] ?? .null, "exited": outcome.journey["exited"] ?? .null,
            "steps": outcome.journey["steps"] ?? .null,
            "bought_after_reminder": .integer(Int64(outcome.convertedAfterReminder.count)),
            "never_bought": .integer(Int64(outcome.neverBought.count)),
            "mismatches": .array(outcome.mismatches.map(JSONValue.string)),
        ]
    }

    static func right(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }

    /// `{"event:purchase": 4, "exit_step": 8}` as `event:purchase 4, exit_step 8`.
    static func reasons(_ exited: JSONValue?) -> String {
        (exited?.objectValue ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.integerValue ?? 0)" }
            .joined(separator: ", ")
    }
}
