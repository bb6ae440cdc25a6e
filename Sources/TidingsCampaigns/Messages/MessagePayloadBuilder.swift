import Foundation
import TidingsModel
import TidingsStore

/// Turns the `content` of `POST /v1/messages` into the native payload `tidingsd` sends, refusing what
/// APNs would refuse before anything is queued.
///
/// ```swift
/// let built = try MessagePayloadBuilder().build(
///     content: ["title": "Sale", "body": "Today only"], kind: .alert, messageID: "msg_1", campaignID: "spring")
/// // built.bytes: {"aps":{"alert":{...},"category":"tidings.default","mutable-content":1},"tidings":{...}}
/// ```
///
/// Rules:
/// - An alert always carries `mutable-content: 1`: the Notification Service Extension reports delivery for
///   every alert (delivery tracking is always on), and also attaches media, registers buttons and applies a
///   badge increment, which would each need it on their own.
/// - An alert with neither a category nor buttons gets ``defaultCategory``, the category the SDK registers
///   with dismiss tracking (`customDismissAction`), so dismissals are reported too.
/// - `background` and `voip` content holds only `data`: nothing is shown, so text, sound, badge, media and
///   buttons are refused rather than silently dropped. Background pushes get `content-available: 1`.
/// - The payload is at most ``MessageKind/payloadLimit`` bytes (4096, or 5120 for VoIP).
public struct MessagePayloadBuilder: Sendable {
    /// The category the SDK registers with dismiss tracking; the default of alerts without buttons.
    public static let defaultCategory = "tidings.default"

    /// The payload and its bytes.
    public struct Built: Sendable, Hashable {
        public var payload: PushPayload
        public var bytes: [UInt8]
    }

    static let contentKeys: Set<String> = [
        "title", "subtitle", "body", "sound", "badge", "category", "thread_id", "media", "buttons",
        "default_action", "coupon", "inbox", "data",
    ]

    /// Hosts whose media may be fetched over plain HTTP (a media server on the developer's machine); the
    /// SDK must allow the same hosts (`MediaPolicy.insecureHTTPHosts`).
    public var insecureMediaHosts: Set<String>

    public init(insecureMediaHosts: Set<String> = []) {
        self.insecureMediaHosts = insecureMediaHosts
    }

    /// The payload of `content` as `kind`, with `tidings.id` = `messageID` and `tidings.cid` = `campaignID`,
    /// and its native JSON bytes.
    /// - Throws: `invalid_field` naming the field, or `payload_too_large` naming both sizes.
    public func build(
        content: JSONValue, kind: MessageKind, messageID: String, campaignID: String? = nil, sentAt: Date? = nil
    ) throws(MessageError) -> Built {
        let payload = try payload(
            content: content, kind: kind, messageID: messageID, campaignID: campaignID, sentAt: sentAt)
        return Built(payload: payload, bytes: try Self.encode(payload, limit: kind.payloadLimit))
    }

    /// The native JSON bytes of `payload` (sorted keys), refused above `limit` bytes.
    public static func encode(_ payload: PushPayload, limit: Int) throws(MessageError) -> [UInt8] {
        let bytes: [UInt8]
        do {
            bytes = try payload.nativeJSON.serialized(sortedKeys: true)
        } catch {
            throw MessageError(code: "invalid_field", field: "content", message: "content: \(error)")
        }
        guard bytes.count <= limit else {
            throw MessageError(
                code: "payload_too_large", field: "content",
                message: "the payload is \(bytes.count) bytes; the limit is \(limit) bytes")
        }
        return bytes
    }

    /// The payload of `content` as `kind`, before the size check.
    public func payload(
        content: JSONValue, kind: MessageKind, messageID: String, campaignID: String? = nil, sentAt: Date? = nil
    ) throws(MessageError) -> PushPayload {
        guard let object = content.objectValue else { throw .invalid("content", "must be a JSON object") }
        for key in object.keys.sorted() where !Self.contentKeys.contains(key) {
            throw .invalid("content.\(key)", "is not a content field")
        }
        var payload = PushPayload(messageID: messageID, campaignID: campaignID, sentAt: sentAt)
        if let data = object["data"], !data.isNull {
            guard let data = data.objectValue else { throw .invalid("content.data", "must be a JSON object") }
            payload.data = data
        }
        guard kind == .alert else {
            for key in object.keys.sorted() where key != "data" {
                throw .invalid(
                    "content.\(key)", "a \(kind.rawValue) message shows nothing; put what the app needs in data")
            }
            payload.contentAvailable = kind == .background || kind == .uninstallCheck
            payload.isInternal = kind == .uninstallCheck
            return payload
        }
        let alert = PushAlert(
            title: try Self.string(object, "title"), subtitle: try Self.string(object, "subtitle"),
            body: try Self.string(object, "body"))
        guard !alert.isEmpty else { throw .invalid("content.title", "an alert needs a title or a body") }
        payload.alert = alert
        payload.sound = try Self.string(object, "sound").map { PushSound(name: $0) }
        payload.category = try Self.string(object, "category")
        payload.threadID = try Self.string(object, "thread_id")
        payload.coupon = try Self.string(object, "coupon")
        if let badge = object["badge"], !badge.isNull { payload.badge = try Self.badge(badge) }
        if let media = object["media"], !media.isNull { payload.media = try mediaContent(media) }
        if let buttons = object["buttons"], !buttons.isNull { payload.buttons = try Self.buttons(buttons) }
        if let action = object["default_action"], !action.isNull {
            payload.defaultAction = try Self.action(action, field: "content.default_action")
        }
        if let inbox = object["inbox"], !inbox.isNull { payload.inbox = try Self.inbox(inbox) }
        if payload.category == nil && payload.buttons.isEmpty { payload.category = Self.defaultCategory }
        payload.mutableContent = true
        return payload
    }

    // MARK: Fields

    static func string(_ object: [String: JSONValue], _ key: String, prefix: String = "content") throws(MessageError)
        -> String?
    {
        guard let value = object[key], !value.isNull else { return nil }
        guard let string = value.stringValue else { throw .invalid("\(prefix).\(key)", "must be a string") }
        return string
    }

    static func integer(_ value: JSONValue?) -> Int64? {
        switch value {
        case .integer(let integer): integer
        case .double(let double) where double == double.rounded() && abs(double) < 1e15: Int64(double)
        default: nil
        }
    }

    private static func badge(_ value: JSONValue) throws(MessageError) -> BadgeInstruction {
        guard let object = value.objectValue, let op = object["op"]?.stringValue else {
            throw .invalid("content.badge", #"must be {"op": "set|increment|clear", "value": n}"#)
        }
        let amount = integer(object["value"])
        switch op {
        case "clear": return .clear
        case "set":
            guard let amount, amount >= 0, amount <= 99_999 else {
                throw .invalid("content.badge.value", "must be an integer from 0 to 99999 for set")
            }
            return amount == 0 ? .clear : .set(Int(amount))
        case "increment":
            let amount = amount ?? 1
            guard amount >= 1, amount <= 99_999 else {
                throw .invalid("content.badge.value", "must be an integer from 1 to 99999 for increment")
            }
            return .increment(Int(amount))
        default:
            throw .invalid("content.badge.op", "must be set, increment or clear")
        }
    }

    private func mediaContent(_ value: JSONValue) throws(MessageError) -> PushMedia {
        guard let object = value.objectValue, let url = object["url"]?.stringValue,
            let components = URLComponents(string: url), let host = components.host?.lowercased(), !host.isEmpty,
            components.scheme?.lowercased() == "https"
                || (components.scheme?.lowercased() == "http" && insecureMediaHosts.contains(host))
        else {
            throw .invalid("content.media.url", "must be an https URL")
        }
        let typeName = try Self.string(object, "type", prefix: "content.media") ?? "image"
        guard let type = PushMedia.Kind(rawValue: typeName) else {
            throw .invalid("content.media.type", "must be image, gif, video or audio")
        }
        return PushMedia(source: .remote(url: url), kind: type)
    }

    private static func buttons(_ value: JSONValue) throws(MessageError) -> [PushButton] {
        guard let array = value.arrayValue else { throw .invalid("content.buttons", "must be an array") }
        guard array.count <= PushButton.maximumShown else {
            throw .invalid(
                "content.buttons", "has \(array.count) buttons; iOS shows at most \(PushButton.maximumShown)")
        }
        var buttons: [PushButton] = []
        for (index, element) in array.enumerated() {
            let field = "content.buttons[\(index)]"
            guard let object = element.objectValue else { throw .invalid(field, "must be an object") }
            guard let id = try string(object, "id", prefix: field), !id.isEmpty else {
                throw .invalid("\(field).id", "is required")
            }
            guard let title = try string(object, "title", prefix: field), !title.isEmpty else {
                throw .invalid("\(field).title", "is required")
            }
            let action = try buttonAction(object["action"] ?? ["type": "open_app"], field: "\(field).action")
            buttons.append(
                PushButton(
                    id: id, title: title, action: action, isDestructive: object["destructive"] == .bool(true),
                    requiresAuthentication: object["requires_auth"] == .bool(true)))
        }
        return buttons
    }

    private static func buttonAction(_ value: JSONValue, field: String) throws(MessageError) -> PushButton.Action {
        guard let object = value.objectValue, let type = object["type"]?.stringValue else {
            throw .invalid(field, #"must be {"type": "open_app|deeplink|web|reply|dismiss|custom", ...}"#)
        }
        switch type {
        case "open_app": return .openApp
        case "deeplink": return .deepLink(url: try url(object, field: field))
        case "web": return .web(url: try webURL(object, field: field), inApp: object["in_app"] == .bool(true))
        case "reply":
            return .reply(
                placeholder: try string(object, "placeholder", prefix: field),
                submitTitle: try string(object, "submit_title", prefix: field))
        case "dismiss": return .dismiss
        case "custom": return .custom
        default: throw .invalid("\(field).type", "must be open_app, deeplink, web, reply, dismiss or custom")
        }
    }

    static func action(_ value: JSONValue, field: String) throws(MessageError) -> PushAction {
        guard let object = value.objectValue, let type = object["type"]?.stringValue else {
            throw .invalid(field, #"must be {"type": "open_app|deeplink|web|screen|coupon", ...}"#)
        }
        switch type {
        case "open_app": return .openApp
        case "deeplink": return .deepLink(url: try url(object, field: field))
        case "web": return .web(url: try webURL(object, field: field), inApp: object["in_app"] == .bool(true))
        case "screen":
            guard let name = try string(object, "screen", prefix: field), !name.isEmpty else {
                throw .invalid("\(field).screen", "is required")
            }
            let parameters = object["params"]?.objectValue ?? [:]
            return .screen(name: name, parameters: parameters)
        case "coupon":
            guard let code = try string(object, "code", prefix: field), !code.isEmpty else {
                throw .invalid("\(field).code", "is required")
            }
            return .coupon(code: code)
        default: throw .invalid("\(field).type", "must be open_app, deeplink, web, screen or coupon")
        }
    }

    private static func url(_ object: [String: JSONValue], field: String) throws(MessageError) -> String {
        // A templated link is checked with its tags as sample text: their values are percent-encoded when
        // rendered, so they cannot break it.
        guard let url = try string(object, "url", prefix: field),
            URLComponents(string: Template.sample(url))?.scheme != nil
        else {
            throw .invalid("\(field).url", "must be an absolute URL")
        }
        return url
    }

    /// A web link's URL: http or https with a host. Anything else would reach `UIApplication.open` (or the
    /// in-app browser, which raises for other schemes) as if it were a web page; deep links are for apps.
    private static func webURL(_ object: [String: JSONValue], field: String) throws(MessageError) -> String {
        let url = try url(object, field: field)
        guard let components = URLComponents(string: Template.sample(url)),
            ["http", "https"].contains(components.scheme?.lowercased()),
            !(components.host ?? "").isEmpty
        else {
            throw .invalid(
                "\(field).url", "must be an http or https URL with a host; use a deeplink action for app URLs")
        }
        return url
    }

    private static func inbox(_ value: JSONValue) throws(MessageError) -> InboxPolicy? {
        if value == .bool(false) { return nil }
        if value == .bool(true) { return InboxPolicy() }
        guard let object = value.objectValue else {
            throw .invalid("content.inbox", #"must be true, false or {"expires_at": unix seconds}"#)
        }
        guard let raw = object["expires_at"], !raw.isNull else { return InboxPolicy() }
        guard let seconds = integer(raw), seconds > 0 else {
            throw .invalid("content.inbox.expires_at", "must be unix seconds")
        }
        return InboxPolicy(expiresAt: Date(timeIntervalSince1970: Double(seconds)))
    }
}
