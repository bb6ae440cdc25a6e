import Foundation

/// Decodes the native dialect: Apple's `aps` plus one `tidings` object (see docs/payload-format.md).
///
/// Top-level keys other than `aps` and `tidings` are the app's custom data, merged with `tidings.data`
/// (`tidings.data` wins on conflict). Unknown or unreadable keys inside `tidings` and `aps` are kept in
/// ``PushPayload/unrecognized`` at their paths. Ids: `tidings.id` is the message id, `tidings.cid` the
/// campaign id; there is no fallback.
enum NativeDialect {
    /// The version of the native format this code writes and reads (`tidings.v`).
    static let formatVersion = 1

    /// Whether the payload is ours: a `tidings` object.
    static func owns(_ root: [String: JSONValue]) -> Bool {
        root["tidings"]?.objectValue != nil
    }

    static func decode(_ root: [String: JSONValue]) -> PushPayload {
        var payload = PushPayload(dialect: .native)
        var unrecognized = UnrecognizedKeys()
        var data: [String: JSONValue] = [:]
        for (key, value) in root where key != "tidings" {
            if key == "aps" {
                APSDecoder.decode(value, into: &payload, unrecognized: &unrecognized)
            } else {
                data[key] = value
            }
        }
        let tidings = root["tidings"]?.objectValue ?? [:]
        for (key, value) in tidings {
            if !decodeMember(key, value, into: &payload, data: &data, unrecognized: &unrecognized) {
                unrecognized.keep(value, at: ["tidings", key])
            }
        }
        if case .increment = payload.badge, let apsBadge = root["aps"].flatMap(LenientValue.object)?["badge"],
            APSDecoder.decodeBadge(apsBadge) != nil
        {
            // The increment wins; the absolute badge (a fallback for devices without the extension) is kept.
            unrecognized.keep(apsBadge, at: ["aps", "badge"])
        }
        payload.data = data
        payload.unrecognized = unrecognized.object
        return payload
    }

    /// Decodes one member of `tidings`; false when the key is unknown or its value unreadable.
    private static func decodeMember(
        _ key: String, _ value: JSONValue, into payload: inout PushPayload, data: inout [String: JSONValue],
        unrecognized: inout UnrecognizedKeys
    ) -> Bool {
        let path = ["tidings", key]
        switch key {
        case "v":
            return LenientValue.int(value) == formatVersion
        case "id":
            payload.messageID = LenientValue.string(value)
            return payload.messageID != nil
        case "cid":
            payload.campaignID = LenientValue.string(value)
            return payload.campaignID != nil
        case "app":
            payload.appID = LenientValue.string(value)
            return payload.appID != nil
        case "sent":
            // Always milliseconds here: the seconds-or-milliseconds guess is for vendors' loose fields.
            guard let milliseconds = LenientValue.double(value), milliseconds.isFinite, milliseconds >= 0,
                milliseconds / 1000 <= LenientValue.latestTimestamp
            else { return false }
            payload.sentAt = Date(timeIntervalSince1970: milliseconds / 1000)
        case "internal":
            guard let flag = LenientValue.bool(value) else { return false }
            payload.isInternal = flag
        case "coupon":
            payload.coupon = LenientValue.string(value)
            return payload.coupon != nil
        case "badge":
            guard let badge = decodeBadge(value, unrecognized: &unrecognized) else { return false }
            payload.badge = badge
        case "action":
            guard let action = decodeAction(value, at: path, unrecognized: &unrecognized) else { return false }
            payload.defaultAction = action
        case "buttons":
            guard let elements = value.arrayValue else { return false }
            payload.buttons = decodeButtons(elements, at: path, unrecognized: &unrecognized)
        case "media":
            guard let media = decodeMedia(value, at: path, unrecognized: &unrecognized) else { return false }
            payload.media = media
        case "inbox":
            guard let inbox = decodeInbox(value, unrecognized: &unrecognized) else { return false }
            payload.inbox = inbox
        case "data":
            guard let explicit = value.objectValue else { return false }
            data.merge(explicit) { _, explicit in explicit }
        default:
            return false
        }
        return true
    }

    /// `{"op": "increment", "by": n}` with n > 0 (default 1); set and clear travel in `aps.badge`.
    private static func decodeBadge(_ value: JSONValue, unrecognized: inout UnrecognizedKeys) -> BadgeInstruction? {
        guard let object = value.objectValue, object["op"]?.stringValue == "increment" else { return nil }
        let amount = object["by"].map(LenientValue.int) ?? 1
        guard let amount, amount > 0 else { return nil }
        unrecognized.keep(object, at: ["tidings", "badge"], except: ["op", "by"])
        return .increment(amount)
    }

    /// `{"type": "open_app"|"deeplink"|"web"|"screen"|"coupon", "url", "in_app", "screen", "params", "code"}`.
    ///
    /// Keys the type does not use are kept at `path`; an unknown type or a missing required key leaves the
    /// whole value unread.
    static func decodeAction(_ value: JSONValue, at path: [String], unrecognized: inout UnrecognizedKeys)
        -> PushAction?
    {
        guard let object = value.objectValue, let type = object["type"]?.stringValue else { return nil }
        var consumed: Set<String> = ["type"]
        let action: PushAction?
        switch type {
        case "open_app":
            action = .openApp
        case "deeplink":
            action = object["url"].flatMap(LenientValue.nonEmptyString).map { PushAction.deepLink(url: $0) }
            consumed.insert("url")
        case "web":
            let inApp = object["in_app"].flatMap(LenientValue.bool)
            if inApp != nil { consumed.insert("in_app") }
            action = object["url"].flatMap(LenientValue.nonEmptyString).map {
                PushAction.web(url: $0, inApp: inApp ?? false)
            }
            consumed.insert("url")
        case "screen":
            var parameters: [String: JSONValue] = [:]
            if let given = object["params"]?.objectValue {
                parameters = given
                consumed.insert("params")
            }
            action = object["screen"].flatMap(LenientValue.nonEmptyString).map {
                PushAction.screen(name: $0, parameters: parameters)
            }
            consumed.insert("screen")
        case "coupon":
            action = object["code"].flatMap(LenientValue.nonEmptyString).map { PushAction.coupon(code: $0) }
            consumed.insert("code")
        default:
            action = nil
        }
        guard let action else { return nil }
        unrecognized.keep(object, at: path, except: consumed)
        return action
    }

    /// The buttons that decode; the others, and leftover keys of decoded ones (as `{"id", …}`), are kept as an
    /// array at `path`.
    static func decodeButtons(_ elements: [JSONValue], at path: [String], unrecognized: inout UnrecognizedKeys)
        -> [PushButton]
    {
        var buttons: [PushButton] = []
        var leftovers: [JSONValue] = []
        for (index, element) in elements.enumerated() {
            guard let object = element.objectValue, let (button, consumed) = decodeButton(object, index: index)
            else {
                leftovers.append(element)
                continue
            }
            buttons.append(button)
            var rest = object.filter { !consumed.contains($0.key) }
            if !rest.isEmpty {
                rest["id"] = .string(button.id)
                leftovers.append(.object(rest))
            }
        }
        unrecognized.keepArrayElements(leftovers, at: path)
        return buttons
    }

    /// One button: `title` and a known `type` are required; `id` defaults to `button<n>` (1-based).
    private static func decodeButton(_ object: [String: JSONValue], index: Int) -> (PushButton, Set<String>)? {
        guard let title = object["title"].flatMap(LenientValue.string), let type = object["type"]?.stringValue
        else { return nil }
        var consumed: Set<String> = ["title", "type"]
        let id: String
        if let given = object["id"].flatMap(LenientValue.nonEmptyString) {
            id = given
            consumed.insert("id")
        } else {
            id = "button\(index + 1)"
        }
        let url = object["url"].flatMap(LenientValue.nonEmptyString)
        let action: PushButton.Action
        switch type {
        case "open_app":
            action = .openApp
        case "deeplink":
            guard let url else { return nil }
            action = .deepLink(url: url)
            consumed.insert("url")
        case "web":
            guard let url else { return nil }
            let inApp = object["in_app"].flatMap(LenientValue.bool)
            if inApp != nil { consumed.insert("in_app") }
            action = .web(url: url, inApp: inApp ?? false)
            consumed.insert("url")
        case "reply":
            let placeholder = object["placeholder"].flatMap(LenientValue.string)
            let submit = object["submit"].flatMap(LenientValue.string)
            if placeholder != nil { consumed.insert("placeholder") }
            if submit != nil { consumed.insert("submit") }
            action = .reply(placeholder: placeholder, submitTitle: submit)
        case "dismiss":
            action = .dismiss
        case "custom":
            action = .custom
        default:
            return nil
        }
        let destructive = object["destructive"].flatMap(LenientValue.bool)
        let authentication = object["auth"].flatMap(LenientValue.bool)
        if destructive != nil { consumed.insert("destructive") }
        if authentication != nil { consumed.insert("auth") }
        let button = PushButton(
            id: id, title: title, action: action, isDestructive: destructive ?? false,
            requiresAuthentication: authentication ?? false)
        return (button, consumed)
    }

    /// `{"url"|"resource", "type", "ext", "mime"}`; other keys are kept at `path`.
    static func decodeMedia(_ value: JSONValue, at path: [String], unrecognized: inout UnrecognizedKeys)
        -> PushMedia?
    {
        guard let object = value.objectValue else { return nil }
        let source: PushMedia.Source
        var consumed: Set<String> = ["type", "ext", "mime"]
        if let url = object["url"].flatMap(LenientValue.nonEmptyString) {
            source = .remote(url: url)
            consumed.insert("url")
        } else if let name = object["resource"].flatMap(LenientValue.nonEmptyString) {
            source = .bundled(name: name)
            consumed.insert("resource")
        } else {
            return nil
        }
        let type = object["type"]?.stringValue
        let ext = object["ext"]?.stringValue
        let mime = object["mime"]?.stringValue
        if object["type"] != nil && type.flatMap(PayloadNormalizer.kind(named:)) == nil { consumed.remove("type") }
        if object["ext"] != nil && ext == nil { consumed.remove("ext") }
        if object["mime"] != nil && mime == nil { consumed.remove("mime") }
        unrecognized.keep(object, at: path, except: consumed)
        return PayloadNormalizer.media(source: source, type: type, ext: ext, mime: mime)
    }

    /// `{"expires_at": unix seconds}` (milliseconds accepted), `{}` or `true` to keep without expiry.
    private static func decodeInbox(_ value: JSONValue, unrecognized: inout UnrecognizedKeys) -> InboxPolicy? {
        if LenientValue.bool(value) == true { return InboxPolicy() }
        guard let object = value.objectValue else { return nil }
        var consumed: Set<String> = []
        var policy = InboxPolicy()
        if let expiry = object["expires_at"].flatMap(LenientValue.timestamp) {
            policy.expiresAt = expiry
            consumed.insert("expires_at")
        }
        unrecognized.keep(object, at: ["tidings", "inbox"], except: consumed)
        return policy
    }
}
