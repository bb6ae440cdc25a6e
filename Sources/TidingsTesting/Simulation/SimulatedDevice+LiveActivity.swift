import Foundation
import Tidings
import TidingsAPNsEmulator
import TidingsModel

/// What ActivityKit does on a phone with the Live Activity pushes that reach it: a push-to-start push
/// starts an activity and gives it an update token (which the app reports), an update changes its content
/// state, an end ends it (and the app removes its token); a push older than the state shown is dropped.
extension SimulatedDevice {
    /// The activities this device has shown, ended ones included, by id.
    public var liveActivities: [String: SimulatedLiveActivity] { activities }

    /// Reports a push-to-start token for every attributes type the app offers, as
    /// `Activity<Attributes>.pushToStartTokenUpdates` does at launch.
    func reportPushToStartTokens(_ client: TidingsClient) async throws(DeviceFleetError) {
        for (type, token) in pushToStartTokens.sorted(by: { $0.key < $1.key }) {
            let result: LiveActivitySyncResult
            do {
                result = try await client.liveActivities.didUpdatePushToStartToken(Data(token), attributesType: type)
            } catch {
                throw .deviceFailed(index: index, reason: "push-to-start token for \(type): \(error)")
            }
            try check(result, "push-to-start token for \(type)")
        }
    }

    func applyLiveActivityPush(
        _ notification: APNsEmulatorNotification, client: TidingsClient, tally: inout FleetTally
    ) async throws(DeviceFleetError) {
        let aps = notification.payload["aps"]
        let timestamp = aps?["timestamp"]?.integerValue ?? 0
        switch aps?["event"]?.stringValue {
        case "start":
            guard let type = aps?["attributes-type"]?.stringValue,
                pushToStartTokens[type]?.hexString == notification.deviceToken.lowercased()
            else {
                tally.liveActivityRefused += 1
                return
            }
            let attributes = aps?["attributes"] ?? .object([:])
            let id = attributes["tidingsActivityID"]?.stringValue ?? UUID().uuidString.lowercased()
            if activities[id]?.phase == .active {
                tally.liveActivityRepeats += 1
                return
            }
            let updateToken = (0..<32).map { _ in UInt8.random(in: 0...255, using: &liveActivityRandom) }
            // Known to the fleet before tidingsd hears of it, so no update can arrive for an unknown token.
            liveActivityTokens.assign(updateToken.hexString, toDevice: index)
            activities[id] = SimulatedLiveActivity(
                id: id, attributesType: type, attributes: attributes, contentState: aps?["content-state"] ?? .null,
                phase: .active, updateToken: updateToken.hexString, timestamp: timestamp,
                staleDate: aps?["stale-date"]?.integerValue, relevanceScore: Self.number(aps?["relevance-score"]))
            tally.liveActivityStarts += 1
            let result: LiveActivitySyncResult
            do {
                result = try await client.liveActivities.didUpdateToken(
                    Data(updateToken), activityID: id, attributesType: type)
            } catch {
                throw .deviceFailed(index: index, reason: "update token of \(id): \(error)")
            }
            try check(result, "update token of \(id)")
        case let event?:
            guard
                var activity = activities.values.first(where: {
                    $0.updateToken == notification.deviceToken.lowercased()
                }),
                activity.phase == .active
            else {
                tally.liveActivityRefused += 1
                return
            }
            guard timestamp >= activity.timestamp else {
                activities[activity.id]?.outdatedPushes += 1
                tally.liveActivityOutdated += 1
                return
            }
            activity.timestamp = timestamp
            if let state = aps?["content-state"] { activity.contentState = state }
            if let stale = aps?["stale-date"]?.integerValue { activity.staleDate = stale }
            if let score = Self.number(aps?["relevance-score"]) { activity.relevanceScore = score }
            if event == "end" {
                activity.phase = .ended
                activity.dismissalDate = aps?["dismissal-date"]?.integerValue
                activities[activity.id] = activity
                tally.liveActivityEnds += 1
                // `activityStateUpdates` reports `.ended`; the glue forwards it and the token goes.
                try check(await client.liveActivities.activityDidEnd(activityID: activity.id), "end of \(activity.id)")
            } else {
                activity.updates += 1
                activities[activity.id] = activity
                tally.liveActivityUpdates += 1
            }
        case nil:
            tally.liveActivityRefused += 1
        }
    }

    private static func number(_ value: JSONValue?) -> Double? {
        switch value {
        case .integer(let integer)?: Double(integer)
        case .double(let double)?: double
        default: nil
        }
    }

    private func check(_ result: LiveActivitySyncResult, _ what: String) throws(DeviceFleetError) {
        switch result {
        case .synced: return
        case .deferred(_, let reason), .failed(let reason):
            throw .deviceFailed(index: index, reason: "\(what): \(reason)")
        }
    }
}
