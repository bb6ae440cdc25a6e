import Foundation
import TidingsModel

extension CampaignDriver {
    /// `POST /v1/live-activities`: starts, updates or ends activities.
    /// - Returns: the answer's counts (`sent`, `removed`, `failed`, `skipped`, ...).
    public func sendLiveActivity(_ body: JSONValue) async throws(DeviceFleetError) -> JSONValue {
        try await call("POST", "/v1/live-activities", body: body)
    }

    /// `GET /v1/live-activities/{id}`: the activity's update tokens on the server and their last outcome; no
    /// installations when the server holds none (it answers 404 then).
    public func liveActivity(_ id: String) async throws(DeviceFleetError) -> JSONValue {
        try await call("GET", "/v1/live-activities/\(id)", body: nil, notFound: ["installations": []])
    }

    /// Waits until tidingsd holds `count` update tokens of activity `id` (0: none, `GET` answers 404), as the
    /// devices report or remove them.
    /// - Returns: the tokens it holds when they number `count`, or when `timeout` passes.
    public func waitForLiveActivityTokens(id: String, count: Int, timeout: Duration) async throws(DeviceFleetError)
        -> [String]
    {
        let deadline = clock.now.addingTimeInterval(timeout.seconds)
        while true {
            let tokens =
                try await liveActivity(id)["installations"]?.arrayValue?.compactMap { $0["token"]?.stringValue } ?? []
            if tokens.count == count || clock.now >= deadline { return tokens }
            try? await clock.sleep(for: .milliseconds(100))
        }
    }

    /// Waits until `count` devices show activity `id` and every one of them satisfies `condition`.
    /// - Returns: the activity as each of those devices shows it.
    public func waitForLiveActivity(
        id: String, on count: Int, fleet: DeviceFleet, timeout: Duration,
        where condition: @Sendable (SimulatedLiveActivity) -> Bool
    ) async throws(DeviceFleetError) -> [SimulatedLiveActivity] {
        let deadline = clock.now.addingTimeInterval(timeout.seconds)
        while true {
            let shown = await fleet.liveActivity(id: id)
            if shown.count == count, shown.allSatisfy(condition) { return shown }
            if clock.now >= deadline {
                let matching = shown.filter(condition).count
                throw .timedOut(
                    "after \(timeout) \(shown.count) devices show activity \(id), \(matching) as expected (wanted \(count))"
                        + (fleet.failures.first.map { "; device \($0.deviceIndex): \($0.message)" } ?? ""))
            }
            try? await clock.sleep(for: .milliseconds(100))
        }
    }
}
