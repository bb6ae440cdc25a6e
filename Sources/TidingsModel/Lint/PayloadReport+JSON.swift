import Foundation

extension PayloadReport {
    /// The report as one JSON object for machines (`tidings payload inspect --json`).
    ///
    /// Every key is present; absent values are `null`. Dates are Unix seconds. The keys are listed in
    /// `docs/lint-rules.md`; write it with sorted keys for stable output.
    public var json: JSONValue {
        var object = Self.fields(of: payload)
        object["warnings"] = .array(warnings.map(Self.warning))
        object["size_bytes"] = .integer(Int64(sizeInBytes))
        object["compact_size_bytes"] = compactSizeInBytes.map { .integer(Int64($0)) } ?? .null
        object["size_limit"] = .integer(Int64(sizeLimit))
        return .object(object)
    }

    /// The canonical payload's fields, every key present and absent values `null`: the first part of
    /// ``json``, and what `tidings payload convert` compares across a round trip.
    public static func fields(of payload: PushPayload) -> [String: JSONValue] {
        [
            "dialect": .string(payload.dialect.rawValue),
            "kind": .string(payload.kind.rawValue),
            "delivery": .string(payload.delivery.rawValue),
            "message_id": Self.string(payload.messageID),
            "campaign_id": Self.string(payload.campaignID),
            "app_id": Self.string(payload.appID),
            "sent_at": Self.seconds(payload.sentAt),
            "alert": payload.alert.map(Self.alert) ?? .null,
            "sound": payload.sound.map(Self.sound) ?? .null,
            "category": Self.string(payload.category),
            "thread_id": Self.string(payload.threadID),
            "target_content_id": Self.string(payload.targetContentID),
            "interruption_level": Self.string(payload.interruptionLevel?.rawValue),
            "relevance_score": payload.relevanceScore.map(JSONValue.double) ?? .null,
            "badge": Self.badge(payload.badge),
            "mutable_content": .bool(payload.mutableContent),
            "content_available": .bool(payload.contentAvailable),
            "is_internal": .bool(payload.isInternal),
            "action": Self.action(payload.defaultAction),
            "buttons": .array(payload.buttons.map(Self.button)),
            "media": payload.media.map(Self.media) ?? .null,
            "coupon": Self.string(payload.coupon),
            "inbox": payload.inbox.map { .object(["expires_at": Self.seconds($0.expiresAt)]) } ?? .null,
            "data": .object(payload.data),
            "unrecognized": .object(payload.unrecognized),
        ]
    }

    /// A lint finding as `{code, severity, message, path}`.
    public static func warning(_ warning: PayloadWarning) -> JSONValue {
        .object([
            "code": .string(warning.code.rawValue),
            "severity": .string(warning.severity.rawValue),
            "message": .string(warning.message),
            "path": string(warning.path),
        ])
    }

    static func string(_ value: String?) -> JSONValue {
        value.map(JSONValue.string) ?? .null
    }

    static func strings(_ values: [String]?) -> JSONValue {
        values.map { .array($0.map(JSONValue.string)) } ?? .null
    }

    /// Whole seconds as an integer, fractional ones as a double.
    static func seconds(_ date: Date?) -> JSONValue {
        guard let seconds = date?.timeIntervalSince1970 else { return .null }
        if seconds.rounded() == seconds, let whole = Int64(exactly: seconds) { return .integer(whole) }
        return .double(seconds)
    }

    static func alert(_ alert: PushAlert) -> JSONValue {
        .object([
            "title": string(alert.title), "subtitle": string(alert.subtitle), "body": string(alert.body),
            "title_loc_key": string(alert.titleLocKey), "title_loc_args": strings(alert.titleLocArgs),
            "subtitle_loc_key": string(alert.subtitleLocKey), "subtitle_loc_args": strings(alert.subtitleLocArgs),
            "loc_key": string(alert.locKey), "loc_args": strings(alert.locArgs),
            "launch_image": string(alert.launchImage),
        ])
    }

    static func sound(_ sound: PushSound) -> JSONValue {
        .object([
            "name": .string(sound.name), "critical": .bool(sound.isCritical),
            "volume": sound.volume.map(JSONValue.double) ?? .null,
        ])
    }

    /// `{op, value}`: `none` and `clear` have no operand (`clear` sets the badge to 0).
    static func badge(_ badge: BadgeInstruction) -> JSONValue {
        let (op, value): (String, JSONValue) =
            switch badge {
            case .none: ("none", .null)
            case .set(let count): ("set", .integer(Int64(count)))
            case .increment(let count): ("increment", .integer(Int64(count)))
            case .clear: ("clear", .null)
            }
        return .object(["op": .string(op), "value": value])
    }

    /// `{type, url, in_app, screen, params, code}`; `type` is `none` when the tap uses the system default.
    static func action(_ action: PushAction?) -> JSONValue {
        var type = "none"
        var url: String?
        var inApp: Bool?
        var screen: String?
        var params: [String: JSONValue]?
        var code: String?
        switch action {
        case nil: break
        case .openApp?: type = "open_app"
        case .deepLink(let link)?: (type, url) = ("deeplink", link)
        case .web(let link, let isInApp)?: (type, url, inApp) = ("web", link, isInApp)
        case .screen(let name, let parameters)?: (type, screen, params) = ("screen", name, parameters)
        case .coupon(let coupon)?: (type, code) = ("coupon", coupon)
        }
        return .object([
            "type": .string(type), "url": string(url), "in_app": inApp.map(JSONValue.bool) ?? .null,
            "screen": string(screen), "params": params.map(JSONValue.object) ?? .null, "code": string(code),
        ])
    }

    static func button(_ button: PushButton) -> JSONValue {
        var type: String
        var url: String?
        var inApp: Bool?
        var placeholder: String?
        var submitTitle: String?
        switch button.action {
        case .openApp: type = "open_app"
        case .deepLink(let link): (type, url) = ("deeplink", link)
        case .web(let link, let isInApp): (type, url, inApp) = ("web", link, isInApp)
        case .reply(let hint, let submit): (type, placeholder, submitTitle) = ("reply", hint, submit)
        case .dismiss: type = "dismiss"
        case .custom: type = "custom"
        }
        return .object([
            "id": .string(button.id), "title": .string(button.title), "type": .string(type), "url": string(url),
            "in_app": inApp.map(JSONValue.bool) ?? .null, "placeholder": string(placeholder),
            "submit_title": string(submitTitle), "destructive": .bool(button.isDestructive),
            "requires_authentication": .bool(button.requiresAuthentication),
        ])
    }

    static func media(_ media: PushMedia) -> JSONValue {
        var bundled: String?
        if case .bundled(let name) = media.source { bundled = name }
        return .object([
            "url": string(media.url), "bundled_name": string(bundled), "type": .string(media.kind.rawValue),
            "file_extension": string(media.fileExtension), "mime_type": string(media.mimeType),
        ])
    }
}
