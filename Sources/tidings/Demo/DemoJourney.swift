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
    func lines() -> [String] {
        guard let outcome else { return ["journey failed: \(failure ?? "no outcome")"] }
        let journey = outcome.journey
        let exited = (journey["exited"]?.objectValue ?? [:]).sorted { $0.key < $1.key }
            .map { "\($0.key) \($0.value.integerValue ?? 0)" }.joined(separator: ", ")
        var lines = [
            "journey \(outcome.journeyID): \(journey["entered"]?.integerValue ?? 0) entered, "
                + "\(outcome.convertedAfterReminder.count) bought after the reminder, "
                + "\(outcome.neverBought.count) never; exited: \(exited)",
            "step        entered  sent  delivered  opened  converted  exited",
        ]
        for step in journey["steps"]?.arrayValue ?? [] {
            func number(_ name: String) -> String { step[name]?.integerValue.map(String.init) ?? "-" }
            let stepExits = (step["exited"]?.objectValue ?? [:]).sorted { $0.key < $1.key }
                .map { "\($0.key) \($0.value.integerValue ?? 0)" }.joined(separator: ", ")
            lines.append(
                (step["id"]?.stringValue ?? "?").padding(toLength: 12, withPad: " ", startingAt: 0)
                    + [("entered", 7), ("sent", 6), ("delivered", 11), ("opened", 8), ("converted", 11)]
                    .map { String(repeating: " ", count: max(0, $0.1 - number($0.0).count)) + number($0.0) }
                    .joined() + (stepExits.isEmpty ? "" : "  " + stepExits))
        }
        lines += outcome.mismatches.map { "differs: \($0)" }
        return lines
    }
}
