import Foundation
import TidingsModel
import TidingsPush
import TidingsStore

/// The validated body of `POST /v1/messages`.
public struct MessageRequest: Sendable, Hashable {
    public var target: MessageTarget
    /// `target` as it was given: what the resolver reads back from the message's plan.
    public var targetJSON: JSONValue = .null
    /// The content everyone gets: the default content of the message, or of its first variant.
    public var content: JSONValue
    /// The content per language, when there are no variants.
    public var localizedContent = LocalizedContent(byKey: [:], isLocalized: false)
    /// The split test's arms; empty for a message with one content.
    public var variants: [CampaignVariant] = []
    /// The share of the audience (0 to ``maximumControl``) held back as a control group; only with variants.
    public var control: Double = 0
    /// What counts as a conversion of this message, when it names one.
    public var conversion: ConversionGoal?
    /// How the split test picks its winner, when it does (``WinnerRule``).
    public var winner: WinnerRule?
    /// When the deliveries become due.
    public var schedule: CampaignSchedule = .now
    public var kind: MessageKind
    public var messageType: MessageRecord.MessageType
    /// 10, 5 or 1; background messages are always 5.
    public var priority: Int
    /// When APNs (and tidingsd's retries) stop trying; nil delivers now or never (`ttl: 0`).
    public var expiration: Date?
    /// Seconds each delivery lives after its own due time, when that differs per installation (a `local_time`
    /// message given a `ttl` or the default one); nil when ``expiration`` is one instant for all.
    public var timeToLive: Int64?
    public var collapseID: String?
    public var campaignID: String?
    /// Only installations in this environment, when set.
    public var environment: OutgoingPush.Environment?
    /// An ad reaching a person at night without night-time ad consent: skipped, or held until 08:00 local.
    public var nightPolicy: MessageRecord.NightPolicy = .skip
    /// Pushes per second this message may go out at, at most; nil: as fast as the app's ceiling allows.
    public var ratePerSecond: Int?
    /// `dry_run: true`: answer what sending would do, and send and write nothing (``MessageDryRun``).
    public var dryRun = false

    /// The longest `ttl`: 30 days, as long as APNs stores a notification.
    public static let maximumTTLSeconds: Int64 = 30 * 24 * 3600
    /// How long a message lives when it says nothing: three days, as OneSignal's default. A phone that is off
    /// or out of coverage when the push is sent still gets it when it comes back within that time; APNs stores
    /// the latest one per app and device meanwhile.
    public static let defaultTimeToLive: Duration = .seconds(3 * 24 * 3600)
    /// The longest `collapse_id`, in UTF-8 bytes (APNs' limit).
    public static let maximumCollapseIDBytes = 64

    /// The largest control share.
    public static let maximumControl = 0.5

    static let keys: Set<String> = [
        "target", "content", "kind", "message_type", "priority", "expiration", "ttl", "collapse_id", "campaign_id",
        "environment", "night", "type", "rate_per_second", "send_at", "local_time", "fallback_time_zone", "if_past",
        "variants", "control", "audience", "conversion", "winner", "dry_run",
    ]

    /// Validates `body`, received at `now`.
    /// - Throws: ``MessageError`` naming the field.
    /// - Parameter defaultTimeToLive: how long a message that gives neither `expiration` nor `ttl` lives; zero
    ///   sends such messages now or never.
    public static func parse(
        _ body: [String: JSONValue], now: Date, defaultTimeToLive: Duration = Self.defaultTimeToLive
    ) throws(MessageError) -> MessageRequest {
        for key in body.keys.sorted() where !keys.contains(key) {
            throw .invalid(key, "is not a field of a message")
        }
        let kindName = try string(body, "kind") ?? "alert"
        guard let kind = MessageKind(rawValue: kindName), kind != .uninstallCheck else {
            throw .invalid("kind", "must be alert, background or voip")
        }
        // `type` is the same field under the name marketing tools use (`"type": "transactional"`).
        let typeField = body["type"].map { $0.isNull ? "message_type" : "type" } ?? "message_type"
        if body["type"] != nil && body["message_type"] != nil && body["type"] != body["message_type"] {
            throw .invalid("type", "give type or message_type, not both")
        }
        let typeName = try string(body, typeField) ?? "notification"
        guard let messageType = MessageRecord.MessageType(rawValue: typeName) else {
            throw .invalid(typeField, "must be notification, ad or transactional")
        }
        var targetValue = body["target"]
        // `"audience": "..."` is short for `"target": {"audience": "..."}`.
        if let audience = body["audience"], !audience.isNull {
            if let targetValue, !targetValue.isNull {
                throw .invalid("audience", "give target or audience, not both (an audience can name ids and tags)")
            }
            targetValue = .object(["audience": audience])
        }
        var request = MessageRequest(
            target: try target(targetValue), content: .object([:]), kind: kind, messageType: messageType,
            priority: kind == .background ? 5 : 10)
        request.targetJSON = targetValue ?? .null
        try request.parseContent(body)
        if let conversion = body["conversion"], !conversion.isNull {
            request.conversion = try ConversionGoal.parse(conversion)
        }
        if let winner = body["winner"], !winner.isNull {
            request.winner = try WinnerRule.parse(winner, variants: request.variants, conversion: request.conversion)
        }
        request.schedule = try schedule(body, now: now)
        // The message's expiry counts from when its last delivery can become due: for a local time, the bound of
        // its deliveries' own expiries (each due time plus the ttl, ``timeToLive``).
        let reference = request.schedule.latestDue(now: now)
        if let value = body["priority"], !value.isNull {
            guard let priority = MessagePayloadBuilder.integer(value), [1, 5, 10].contains(priority) else {
                throw .invalid("priority", "must be 10, 5 or 1")
            }
            if kind == .background && priority != 5 {
                throw .invalid("priority", "background messages must use priority 5 (APNs refuses 10)")
            }
            request.priority = Int(priority)
        }
        let expiration = body["expiration"].flatMap { $0.isNull ? nil : $0 }
        let ttl = body["ttl"].flatMap { $0.isNull ? nil : $0 }
        if expiration != nil && ttl != nil { throw .invalid("ttl", "give expiration or ttl, not both") }
        if let expiration {
            guard let seconds = MessagePayloadBuilder.integer(expiration),
                Double(seconds) > reference.timeIntervalSince1970,
                Double(seconds) <= reference.timeIntervalSince1970 + Double(maximumTTLSeconds)
            else {
                throw .invalid(
                    "expiration",
                    "must be unix seconds within \(maximumTTLSeconds) seconds after the message's (last) send time")
            }
            request.expiration = Date(timeIntervalSince1970: Double(seconds))
        }
        if let ttl {
            guard let seconds = MessagePayloadBuilder.integer(ttl), seconds >= 0, seconds <= maximumTTLSeconds else {
                throw .invalid("ttl", "must be seconds from 0 to \(maximumTTLSeconds)")
            }
            // A ttl of 0 is APNs' "now or never".
            request.expiration = seconds == 0 ? nil : reference.addingTimeInterval(Double(seconds))
            request.timeToLive = seconds == 0 ? nil : seconds
        } else if expiration == nil, defaultTimeToLive > .zero {
            request.expiration = reference.addingTimeInterval(defaultTimeToLive.seconds)
            request.timeToLive = Int64(defaultTimeToLive.seconds)
        }
        // One send time: the message's expiry is every delivery's. A local time: each counts from its own.
        if !request.schedule.isLocalTime { request.timeToLive = nil }
        if let collapseID = try string(body, "collapse_id") {
            guard !collapseID.isEmpty, collapseID.utf8.count <= maximumCollapseIDBytes else {
                throw .invalid(
                    "collapse_id",
                    "is \(collapseID.utf8.count) bytes; it must be 1 to \(maximumCollapseIDBytes) bytes")
            }
            // It travels as an HTTP header (`apns-collapse-id`), where a control character would end the field.
            guard !collapseID.containsControlCharacters else {
                throw .invalid("collapse_id", "must not contain control characters (line breaks, tabs, NUL)")
            }
            request.collapseID = collapseID
        }
        if let campaignID = try string(body, "campaign_id") {
            guard ResourceIdentifier.isValid(campaignID) else {
                throw .invalid("campaign_id", ResourceIdentifier.rule)
            }
            request.campaignID = campaignID
        }
        if let environment = try string(body, "environment") {
            guard let value = OutgoingPush.Environment(rawValue: environment) else {
                throw .invalid("environment", "must be sandbox or production")
            }
            request.environment = value
        }
        if let value = body["rate_per_second"], !value.isNull {
            guard let rate = MessagePayloadBuilder.integer(value), rate >= 1,
                rate <= AppSendSettings.maximumRatePerSecond
            else {
                throw .invalid(
                    "rate_per_second",
                    "must be a whole number of pushes per second, 1 to \(AppSendSettings.maximumRatePerSecond)")
            }
            request.ratePerSecond = Int(rate)
        }
        if let night = try string(body, "night") {
            guard let value = MessageRecord.NightPolicy(rawValue: night) else {
                throw .invalid("night", "must be skip or defer")
            }
            request.nightPolicy = value
        }
        if let value = body["dry_run"], !value.isNull {
            guard case .bool(let dryRun) = value else { throw .invalid("dry_run", "must be true or false") }
            request.dryRun = dryRun
        }
        return request
    }

    static func string(_ body: [String: JSONValue], _ key: String) throws(MessageError) -> String? {
        guard let value = body[key], !value.isNull else { return nil }
        guard let string = value.stringValue else { throw .invalid(key, "must be a string") }
        return string
    }

    /// Parses an audience expression, refusing it with `invalid_audience` and the column of the problem.
    public static func audience(_ text: String) throws(MessageError) -> AudienceExpression {
        do {
            return try AudienceExpression.parse(text)
        } catch {
            throw MessageError(
                code: "invalid_audience", field: "audience",
                message: "audience: \(error.message) (\(error.code.rawValue) at column \(error.column))")
        }
    }

    static func target(_ value: JSONValue?) throws(MessageError) -> MessageTarget {
        let usage =
            #"must be one of {"installation_ids": [...]}, {"user_ids": [...]}, {"tags": "..."}, {"audience": "..."}, {"all": true}"#
        guard let object = value?.objectValue, object.count == 1, let (key, inner) = object.first else {
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
                throw MessageError(
                    code: "invalid_tag_expression", field: "target.tags",
                    message: "target.tags: \(error.message) (\(error.code.rawValue) at position \(error.position))")
            }
        case "audience":
            guard let text = inner.stringValue else { throw .invalid("audience", "must be a string") }
            return .audience(try audience(text))
        case "all":
            guard inner == .bool(true) else { throw .invalid("target.all", "must be true") }
            return .all
        default:
            throw .invalid("target", usage)
        }
    }
}
