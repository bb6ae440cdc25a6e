import Foundation
import TidingsCampaigns
import TidingsModel

/// A validated `POST /v1/live-activities` body (docs/live-activities.md).
///
/// ```json
/// {"event": "update", "activity_id": "order-42", "content_state": {"eta": 5}, "stale_date": 1800000600}
/// ```
///
/// Dates are seconds since 1970, as APNs takes them.
public struct LiveActivityRequest: Sendable, Hashable {
    /// Which activities, or for `start` which installations, the push goes to.
    public enum Selector: Sendable, Hashable {
        /// Every update token registered for the activity.
        case activity(String)
        /// Installations as `POST /v1/messages` names them: their push-to-start tokens for `start`, their
        /// update tokens (of ``LiveActivityRequest/attributesType`` when given) for `update` and `end`.
        case audience(MessageTarget)
    }

    public var event: LiveActivityEvent
    public var selector: Selector
    /// For `start`, the activity id the server adds to `attributes` as `tidingsActivityID`, so the app can
    /// register the new activity's update token under it.
    public var activityID: String?
    /// The `ActivityAttributes` type: required to start, a filter for an update or end by audience.
    public var attributesType: String?
    public var attributes: [String: JSONValue]?
    public var contentState: [String: JSONValue]?
    /// Seconds since 1970; the device ignores a push older than the last one it applied.
    public var timestamp: Int64
    public var staleDate: Int64?
    public var dismissalDate: Int64?
    public var relevanceScore: Double?
    public var alert: [String: JSONValue]?
    /// 5 (the default) or 10; 10 draws on the activity's budget.
    public var priority: Int
    /// When over the budget: send at priority 5 (`downgrade`, the default) or refuse with 429 (`refuse`).
    public var refusesOverBudget: Bool
    /// How long APNs keeps trying.
    public var timeToLive: Int64

    /// The longest `ttl`: a Live Activity lasts at most 12 hours (8 active, 4 more on the Lock Screen).
    public static let maximumTTLSeconds: Int64 = 12 * 3600
    public static let defaultTTLSeconds: Int64 = 3600
    /// The key under which `start` puts the activity id into `attributes`.
    public static let activityIDAttribute = "tidingsActivityID"

    static let keys: Set<String> = [
        "event", "activity_id", "target", "attributes_type", "attributes", "content_state", "timestamp",
        "stale_date", "dismissal_date", "relevance_score", "alert", "priority", "on_budget_exhausted", "ttl",
    ]

    /// Validates `body`.
    /// - Parameter now: the default `timestamp`.
    /// - Throws: ``LiveActivityError`` naming the field and the rule.
    public static func parse(_ body: [String: JSONValue], now: Date) throws(LiveActivityError) -> LiveActivityRequest {
        if let unknown = body.keys.filter({ !keys.contains($0) }).sorted().first {
            throw .invalid(unknown, "is not a field of a Live Activity request")
        }
        guard let eventName = body["event"]?.stringValue else {
            throw LiveActivityError(
                code: .invalidEvent, field: "event", message: "event: must be one of start, update, end")
        }
        guard let event = LiveActivityEvent(rawValue: eventName) else {
            throw LiveActivityError(
                code: .invalidEvent, field: "event",
                message: "event: '\(eventName.prefix(40))' is not one of start, update, end")
        }
        let activityID = try identifier(body, "activity_id")
        let target = try body["target"].map { value throws(LiveActivityError) in try Self.target(value) }
        let selector: Selector
        switch (event, activityID, target) {
        case (.start, _, let target?): selector = .audience(target)
        case (.start, _, nil): throw .invalid("target", "is required to start activities (push-to-start)")
        case (_, let id?, nil): selector = .activity(id)
        case (_, nil, let target?): selector = .audience(target)
        case (_, nil, nil): throw .invalid("activity_id", "give activity_id or target")
        case (_, _?, _?): throw .invalid("target", "give activity_id or target, not both")
        }
        let attributesType = try identifier(body, "attributes_type")
        var attributes = try object(body, "attributes")
        let contentState = try object(body, "content_state")
        switch event {
        case .start:
            guard attributesType != nil else { throw .invalid("attributes_type", "is required to start") }
            guard attributes != nil else { throw .invalid("attributes", "is required to start") }
            guard contentState != nil else { throw .invalid("content_state", "is required to start") }
            if let activityID, attributes?[activityIDAttribute] == nil {
                attributes?[activityIDAttribute] = .string(activityID)
            }
        case .update:
            guard contentState != nil else { throw .invalid("content_state", "is required to update") }
            if attributes != nil { throw .invalid("attributes", "is only sent to start an activity") }
        case .end:
            if attributes != nil { throw .invalid("attributes", "is only sent to start an activity") }
        }
        let timestamp = try seconds(body, "timestamp") ?? Int64(now.timeIntervalSince1970.rounded(.down))
        let staleDate = try seconds(body, "stale_date")
        let dismissalDate = try seconds(body, "dismissal_date")
        if let staleDate, staleDate <= timestamp {
            throw LiveActivityError(
                code: .invalidDateOrder, field: "stale_date",
                message: "stale_date (\(staleDate)) must be after timestamp (\(timestamp))")
        }
        if let dismissalDate {
            guard event == .end else { throw .invalid("dismissal_date", "is only sent to end an activity") }
            if dismissalDate < timestamp {
                throw LiveActivityError(
                    code: .invalidDateOrder, field: "dismissal_date",
                    message: "dismissal_date (\(dismissalDate)) must not be before timestamp (\(timestamp))")
            }
            if let staleDate, staleDate > dismissalDate {
                throw LiveActivityError(
                    code: .invalidDateOrder, field: "stale_date",
                    message: "stale_date (\(staleDate)) must not be after dismissal_date (\(dismissalDate))")
            }
        }
        var relevanceScore: Double?
        if let value = body["relevance_score"], !value.isNull {
            let score: Double? =
                switch value {
                case .integer(let integer): Double(integer)
                case .double(let double): double
                default: nil
                }
            guard let score, score.isFinite, score >= 0 else {
                throw .invalid("relevance_score", "must be a number of at least 0")
            }
            relevanceScore = score
        }
        let alert = try self.alert(body["alert"], required: event == .start)
        var priority = 5
        if let value = body["priority"], !value.isNull {
            guard let number = value.integerValue, number == 5 || number == 10 else {
                throw .invalid("priority", "must be 5 or 10")
            }
            priority = Int(number)
        }
        var refusesOverBudget = false
        if let policy = try string(body, "on_budget_exhausted", maximumBytes: 16) {
            guard ["downgrade", "refuse"].contains(policy) else {
                throw .invalid("on_budget_exhausted", "must be downgrade or refuse")
            }
            refusesOverBudget = policy == "refuse"
        }
        var timeToLive = defaultTTLSeconds
        if let value = body["ttl"], !value.isNull {
            guard let ttl = value.integerValue, (0...maximumTTLSeconds).contains(ttl) else {
                throw .invalid("ttl", "must be an integer from 0 to \(maximumTTLSeconds) seconds")
            }
            timeToLive = ttl
        }
        return LiveActivityRequest(
            event: event, selector: selector, activityID: activityID, attributesType: attributesType,
            attributes: attributes, contentState: contentState, timestamp: timestamp, staleDate: staleDate,
            dismissalDate: dismissalDate, relevanceScore: relevanceScore, alert: alert, priority: priority,
            refusesOverBudget: refusesOverBudget, timeToLive: timeToLive)
    }

    private static func string(
        _ body: [String: JSONValue], _ key: String, maximumBytes: Int
    ) throws(LiveActivityError) -> String? {
        guard let value = body[key], !value.isNull else { return nil }
        guard let text = value.stringValue, !text.isEmpty, text.utf8.count <= maximumBytes else {
            throw .invalid(key, "must be a string of 1 to \(maximumBytes) bytes")
        }
        return text
    }

    private static func identifier(_ body: [String: JSONValue], _ key: String) throws(LiveActivityError) -> String? {
        guard let value = body[key], !value.isNull else { return nil }
        guard let text = value.stringValue, APIService.isIdentifier(text) else {
            throw .invalid(key, ResourceIdentifier.rule)
        }
        return text
    }

    private static func object(
        _ body: [String: JSONValue], _ key: String
    ) throws(LiveActivityError) -> [String: JSONValue]? {
        guard let value = body[key], !value.isNull else { return nil }
        guard let object = value.objectValue else { throw .invalid(key, "must be a JSON object") }
        return object
    }

    private static func seconds(_ body: [String: JSONValue], _ key: String) throws(LiveActivityError) -> Int64? {
        guard let value = body[key], !value.isNull else { return nil }
        // Milliseconds are a common slip: a value past year 5138 is refused rather than sent.
        guard let seconds = value.integerValue, (1...99_999_999_999).contains(seconds) else {
            throw .invalid(key, "must be a positive integer of seconds since 1970 (not milliseconds)")
        }
        return seconds
    }

    private static func alert(_ value: JSONValue?, required: Bool) throws(LiveActivityError) -> [String: JSONValue]? {
        guard let value, !value.isNull else {
            if required { throw .invalid("alert", "is required to start an activity: {\"title\": ..., \"body\": ...}") }
            return nil
        }
        guard let object = value.objectValue else { throw .invalid("alert", "must be a JSON object") }
        for key in object.keys.sorted() {
            guard ["title", "body", "sound"].contains(key) else {
                throw .invalid("alert.\(key)", "is not a field of a Live Activity alert (title, body, sound)")
            }
            guard let text = object[key]?.stringValue, !text.isEmpty else {
                throw .invalid("alert.\(key)", "must be a non-empty string")
            }
        }
        guard object["title"] != nil, object["body"] != nil else {
            throw .invalid("alert", "needs title and body")
        }
        return object
    }

    private static func target(_ value: JSONValue) throws(LiveActivityError) -> MessageTarget {
        let usage = #"must be one of {"installation_ids": [...]}, {"user_ids": [...]}, {"tags": "..."}, {"all": true}"#
        guard let object = value.objectValue, object.count == 1, let (key, inner) = object.first else {
            throw .invalid("target", usage)
        }
        switch key {
        case "installation_ids", "user_ids":
            let field = "target.\(key)"
            guard let array = inner.arrayValue, !array.isEmpty else {
                throw .invalid(field, "must be a non-empty array")
            }
            guard array.count <= MessageTarget.maximumIDs else {
                throw .invalid(field, "has \(array.count) ids; the limit is \(MessageTarget.maximumIDs)")
            }
            var ids: [String] = []
            for (index, element) in array.enumerated() {
                guard let id = element.stringValue, !id.isEmpty, id.utf8.count <= 256 else {
                    throw .invalid("\(field)[\(index)]", "must be a string of 1 to 256 bytes")
                }
                ids.append(id)
            }
            return key == "user_ids" ? .users(ids) : .installations(ids)
        case "tags":
            guard let text = inner.stringValue else { throw .invalid("target.tags", "must be a string") }
            do {
                return .tags(try TagExpression.parse(text))
            } catch {
                throw LiveActivityError(
                    code: .invalidTagExpression, field: "target.tags",
                    message: "target.tags: \(error.message) (\(error.code.rawValue) at position \(error.position))")
            }
        case "all":
            guard inner == .bool(true) else { throw .invalid("target.all", "must be true") }
            return .all
        default:
            throw .invalid("target", usage)
        }
    }
}
