import Foundation
import TidingsModel

extension MessageRequest {
    /// Reads `content` (one content, or one per language) or `variants` with an optional `control` share.
    mutating func parseContent(_ body: [String: JSONValue]) throws(MessageError) {
        let variantsValue = body["variants"].flatMap { $0.isNull ? nil : $0 }
        let controlValue = body["control"].flatMap { $0.isNull ? nil : $0 }
        guard let variantsValue else {
            if controlValue != nil { throw .invalid("control", "holds back a share of a split test; give variants") }
            localizedContent = try LocalizedContent.parse(body["content"], field: "content")
            content = localizedContent.defaultContent
            return
        }
        if let content = body["content"], !content.isNull {
            throw .invalid("content", "give content or variants (each with its content), not both")
        }
        guard let array = variantsValue.arrayValue, (1...CampaignVariant.maximumCount).contains(array.count) else {
            throw .invalid("variants", "must be an array of 1 to \(CampaignVariant.maximumCount) variants")
        }
        var ids = Set<String>()
        for (index, element) in array.enumerated() {
            let field = "variants[\(index)]"
            guard let object = element.objectValue else { throw .invalid(field, "must be an object") }
            for key in object.keys.sorted() where !["id", "weight", "content"].contains(key) {
                throw .invalid("\(field).\(key)", "is not a field of a variant")
            }
            guard let id = object["id"]?.stringValue, Self.isVariantID(id) else {
                throw .invalid("\(field).id", "must be 1 to 64 letters, digits, '_' or '-'")
            }
            guard id != CampaignVariant.controlID else {
                throw .invalid("\(field).id", "'control' names the control group; give it a share with control")
            }
            guard ids.insert(id).inserted else { throw .invalid("\(field).id", "repeats variant \(id)") }
            var weight = 1
            if let value = object["weight"], !value.isNull {
                guard let given = MessagePayloadBuilder.integer(value),
                    (1...Int64(CampaignVariant.maximumWeight)).contains(given)
                else {
                    throw .invalid("\(field).weight", "must be an integer from 1 to \(CampaignVariant.maximumWeight)")
                }
                weight = Int(given)
            }
            let content = try LocalizedContent.parse(object["content"], field: "\(field).content")
            variants.append(CampaignVariant(id: id, weight: weight, content: content))
        }
        if let controlValue {
            let share: Double? =
                switch controlValue {
                case .double(let value): value
                case .integer(let value): Double(value)
                default: nil
                }
            guard let share, share >= 0, share <= Self.maximumControl else {
                throw .invalid("control", "must be a share from 0 to \(Self.maximumControl) of the audience")
            }
            control = share
        }
        content = variants[0].content.defaultContent
    }

    /// Reads `send_at`, `local_time`, `fallback_time_zone` and `if_past` at `now`.
    static func schedule(_ body: [String: JSONValue], now: Date) throws(MessageError) -> CampaignSchedule {
        let ifPast = try string(body, "if_past")
        if let ifPast, !["refuse", "send_now"].contains(ifPast) {
            throw .invalid("if_past", "must be refuse or send_now")
        }
        let sendNow = ifPast == "send_now"
        let sendAt = body["send_at"].flatMap { $0.isNull ? nil : $0 }
        let localTimeText = try string(body, "local_time")
        let fallback = try string(body, "fallback_time_zone")
        if sendAt != nil && localTimeText != nil { throw .invalid("send_at", "give send_at or local_time, not both") }
        if let fallback {
            guard localTimeText != nil else {
                throw .invalid("fallback_time_zone", "applies to local_time sends only")
            }
            guard TimeZone(identifier: fallback) != nil else {
                throw .invalid("fallback_time_zone", "is not an IANA time zone such as Europe/Berlin")
            }
        }
        let latest = now.addingTimeInterval(CampaignSchedule.maximumLead)
        if let sendAt {
            guard let date = instant(sendAt) else {
                throw .invalid("send_at", "must be unix seconds or an RFC 3339 time with its offset")
            }
            if date > latest {
                throw .invalid("send_at", "is more than \(Int(CampaignSchedule.maximumLead / 86400)) days ahead")
            }
            if date <= now {
                guard sendNow else {
                    throw MessageError(
                        code: "time_in_past", field: "send_at",
                        message:
                            "send_at is in the past; give a later time, or \"if_past\": \"send_now\" to send at once")
                }
                return .now
            }
            return .at(date.millisecondsSince1970)
        }
        if let localTimeText {
            guard let time = LocalDateTime(localTimeText) else {
                throw .invalid("local_time", "must be a wall-clock time YYYY-MM-DDTHH:MM[:SS] without a zone")
            }
            if time.asUTC.addingTimeInterval(-CampaignSchedule.earliestOffset) > latest {
                throw .invalid("local_time", "is more than \(Int(CampaignSchedule.maximumLead / 86400)) days ahead")
            }
            if time.asUTC.addingTimeInterval(CampaignSchedule.latestOffset) <= now && !sendNow {
                throw MessageError(
                    code: "time_in_past", field: "local_time",
                    message:
                        "local_time has passed in every time zone; give a later time, or \"if_past\": \"send_now\" to send at once"
                )
            }
            return .localTime(time, fallbackTimeZone: fallback, sendPast: sendNow)
        }
        if ifPast != nil { throw .invalid("if_past", "applies to send_at or local_time only") }
        return .now
    }

    /// Unix seconds or an RFC 3339 string with its offset. Strict: Foundation's ISO 8601 formatter takes
    /// `+25:00`, `+09:60` and 2027-02-30 and schedules whatever instant they roll over to.
    private static func instant(_ value: JSONValue) -> Date? {
        if let seconds = MessagePayloadBuilder.integer(value) { return Date(timeIntervalSince1970: Double(seconds)) }
        guard let text = value.stringValue, let milliseconds = RFC3339.parse(text) else { return nil }
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    static func isVariantID(_ id: String) -> Bool {
        (1...64).contains(id.count)
            && id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }
    }
}
