import Foundation
import TidingsModel

/// ActivityKit pushes (`apns-push-type: liveactivity`): the header and `aps` rules Apple documents in
/// "Starting and updating Live Activities with ActivityKit push notifications", and a log of what was
/// accepted.
extension APNsEmulator {
    /// The topic suffix of Live Activity pushes.
    public static let liveActivityTopicSuffix = ".push-type.liveactivity"
    /// Accepted Live Activity pushes kept for ``liveActivityPushes``; the oldest go first.
    static let liveActivityLogSize = 10_000

    /// The `event` values ActivityKit knows.
    static let liveActivityEvents: Set<String> = ["start", "update", "end"]

    /// Every accepted Live Activity push, oldest first (the latest 10,000).
    public var liveActivityPushes: [APNsEmulatorNotification] { state.withLock { $0.liveActivities } }

    func recordLiveActivity(_ notification: APNsEmulatorNotification) {
        state.withLock { state in
            state.liveActivities.append(notification)
            if state.liveActivities.count > Self.liveActivityLogSize {
                state.liveActivities.removeFirst(state.liveActivities.count - Self.liveActivityLogSize)
            }
        }
    }

    /// Refuses a Live Activity push whose topic, priority or `aps` APNs or the device would refuse:
    /// - 400 `BadTopic`: push type `liveactivity` without the `.push-type.liveactivity` topic, or that topic
    ///   with another push type;
    /// - 400 `BadPriority`: a priority other than 5 or 10;
    /// - 400 `BadPayload` (with a `detail`): no `aps` object, no integer `timestamp`, an `event` other than
    ///   `start`/`update`/`end`, `content-state` missing for start and update or not an object, a start without
    ///   `attributes-type`, `attributes` or `alert`, a `dismissal-date` on a push that does not end, a
    ///   `stale-date` or `dismissal-date` that is not an integer, a `relevance-score` that is not a number.
    static func checkLiveActivity(
        pushType: String, topic: String, priority: Int, payload: JSONValue
    ) throws(Refusal) {
        let suffixed = topic.hasSuffix(liveActivityTopicSuffix)
        guard pushType == "liveactivity" else {
            if suffixed {
                throw Refusal(
                    400, "BadTopic", detail: "a \(liveActivityTopicSuffix) topic needs push type liveactivity")
            }
            return
        }
        guard suffixed else {
            throw Refusal(
                400, "BadTopic", detail: "push type liveactivity needs the topic <bundle id>\(liveActivityTopicSuffix)")
        }
        guard priority == 5 || priority == 10 else {
            throw Refusal(400, "BadPriority", detail: "a Live Activity push has priority 5 or 10")
        }
        func bad(_ detail: String) -> Refusal { Refusal(400, "BadPayload", detail: detail) }
        guard let aps = payload["aps"]?.objectValue else { throw bad("aps must be an object") }
        guard aps["timestamp"]?.integerValue != nil else { throw bad("aps.timestamp (seconds) is required") }
        guard let event = aps["event"]?.stringValue else { throw bad("aps.event is required") }
        guard liveActivityEvents.contains(event) else { throw bad("aps.event must be start, update or end") }
        if let state = aps["content-state"] {
            guard state.objectValue != nil else { throw bad("aps.content-state must be an object") }
        } else if event != "end" {
            throw bad("aps.content-state is required for \(event)")
        }
        if event == "start" {
            guard aps["attributes-type"]?.stringValue?.isEmpty == false else {
                throw bad("aps.attributes-type is required for start")
            }
            guard aps["attributes"]?.objectValue != nil else { throw bad("aps.attributes is required for start") }
            guard aps["alert"] != nil else { throw bad("aps.alert is required for start") }
        }
        for key in ["stale-date", "dismissal-date"] where aps[key] != nil {
            guard aps[key]?.integerValue != nil else { throw bad("aps.\(key) must be an integer of seconds") }
        }
        if aps["dismissal-date"] != nil && event != "end" { throw bad("aps.dismissal-date is only for end") }
        if let score = aps["relevance-score"] {
            switch score {
            case .integer, .double: break
            default: throw bad("aps.relevance-score must be a number")
            }
        }
    }
}
