/// Decodes NHN Cloud Push payloads: `aps` (built from NHN's reserved words), the delivery receipt, the rich
/// message, and the app's custom keys at the top level.
///
/// - Ids: the message id and the campaign id are both `messageDeliveryReceiptData.messageId` (a 64-bit
///   number, kept as its decimal string): one NHN message is one send request. `sentDateTime` (ISO-8601)
///   is the send time. `messageDeliveryReceipt` is kept in ``PushPayload/unrecognized``.
/// - Rich message (`richMessage`, an object or a string holding one; the exact `userInfo` key the NHN SDK
///   reads is unverified — this follows the send API's shape): `media` (or `iosMedia`, preferred)
///   `{source, sourceType REMOTE|LOCAL, mediaType IMAGE|GIF|VIDEO|AUDIO, extension}` and up to three
///   `buttons` `{name, buttonType REPLY|DEEP_LINK|OPEN_APP|OPEN_URL|DISMISS, link, hint, submit}`
///   (`submitName` in Notification Hub's shape).
///   Button ids are `identifier`/`id` when given, else `nhn_button<n>` (1-based).
/// - Every other top-level key is the app's ``PushPayload/data``.
enum NHNCloudDialect {
    static let receiptKey = "messageDeliveryReceipt"
    static let receiptDataKey = "messageDeliveryReceiptData"
    static let richMessageKey = "richMessage"

    /// Whether the payload is NHN Cloud's: a delivery receipt or a rich message.
    static func owns(_ root: [String: JSONValue]) -> Bool {
        root[receiptDataKey] != nil || root[receiptKey] != nil || root[richMessageKey] != nil
    }

    static func decode(_ root: [String: JSONValue]) -> PushPayload {
        var payload = PushPayload(dialect: .nhncloud)
        var unrecognized = UnrecognizedKeys()
        var data: [String: JSONValue] = [:]
        for (key, value) in root {
            switch key {
            case "aps":
                APSDecoder.decode(value, into: &payload, unrecognized: &unrecognized)
            case receiptDataKey:
                if let receipt = LenientValue.object(value) {
                    decodeReceipt(receipt, into: &payload, unrecognized: &unrecognized)
                } else {
                    unrecognized.keep(value, at: [key])
                }
            case richMessageKey:
                if let rich = LenientValue.object(value) {
                    decodeRichMessage(rich, into: &payload, unrecognized: &unrecognized)
                } else {
                    unrecognized.keep(value, at: [key])
                }
            case receiptKey:
                unrecognized.keep(value, at: [key])
            case _ where PayloadNormalizer.isTransportKey(key):
                unrecognized.keep(value, at: [key])
            default:
                data[key] = value
            }
        }
        payload.data = data
        payload.unrecognized = unrecognized.object
        return payload
    }

    private static func decodeReceipt(
        _ receipt: [String: JSONValue], into payload: inout PushPayload, unrecognized: inout UnrecognizedKeys
    ) {
        var consumed: Set<String> = []
        if let id = receipt["messageId"].flatMap(LenientValue.nonEmptyString) {
            payload.messageID = id
            payload.campaignID = id
            consumed.insert("messageId")
        }
        if let sent = receipt["sentDateTime"].flatMap(LenientValue.timestamp) {
            payload.sentAt = sent
            consumed.insert("sentDateTime")
        }
        unrecognized.keep(receipt, at: [receiptDataKey], except: consumed)
    }

    private static func decodeRichMessage(
        _ rich: [String: JSONValue], into payload: inout PushPayload, unrecognized: inout UnrecognizedKeys
    ) {
        var consumed: Set<String> = []
        let mediaKey = rich["iosMedia"].flatMap(LenientValue.object) != nil ? "iosMedia" : "media"
        if let mediaValue = rich[mediaKey],
            let media = decodeMedia(mediaValue, key: mediaKey, unrecognized: &unrecognized)
        {
            payload.media = media
            consumed.insert(mediaKey)
        }
        if let elements = rich["buttons"].flatMap(LenientValue.array) {
            var leftovers: [JSONValue] = []
            for (index, element) in elements.enumerated() {
                guard let object = LenientValue.object(element), let (button, used) = decodeButton(object, index: index)
                else {
                    leftovers.append(element)
                    continue
                }
                payload.buttons.append(button)
                var rest = object.filter { !used.contains($0.key) }
                if !rest.isEmpty {
                    rest["identifier"] = .string(button.id)
                    leftovers.append(.object(rest))
                }
            }
            unrecognized.keepArrayElements(leftovers, at: [richMessageKey, "buttons"])
            consumed.insert("buttons")
        }
        unrecognized.keep(rich, at: [richMessageKey], except: consumed)
    }

    private static func decodeMedia(_ value: JSONValue, key: String, unrecognized: inout UnrecognizedKeys)
        -> PushMedia?
    {
        guard let media = LenientValue.object(value), let source = media["source"].flatMap(LenientValue.nonEmptyString)
        else { return nil }
        let isLocal = media["sourceType"]?.stringValue?.uppercased() == "LOCAL"
        let type = media["mediaType"]?.stringValue
        let ext = media["extension"]?.stringValue
        unrecognized.keep(
            media, at: [richMessageKey, key], except: ["source", "sourceType", "mediaType", "extension"])
        return PayloadNormalizer.media(
            source: isLocal ? .bundled(name: source) : .remote(url: source), type: type, ext: ext, mime: nil)
    }

    private static func decodeButton(_ object: [String: JSONValue], index: Int) -> (PushButton, Set<String>)? {
        guard let name = object["name"].flatMap(LenientValue.string),
            let type = object["buttonType"]?.stringValue?.uppercased()
        else { return nil }
        var used: Set<String> = ["name", "buttonType"]
        let link = object["link"].flatMap(LenientValue.nonEmptyString)
        let action: PushButton.Action
        switch type {
        case "OPEN_APP":
            action = .openApp
        case "DISMISS":
            action = .dismiss
        case "REPLY":
            let hint = object["hint"].flatMap(LenientValue.string)
            // Notification Hub spells the submit title `submitName`.
            let submitKey = object["submit"] != nil ? "submit" : "submitName"
            let submit = object[submitKey].flatMap(LenientValue.string)
            if hint != nil { used.insert("hint") }
            if submit != nil { used.insert(submitKey) }
            action = .reply(placeholder: hint, submitTitle: submit)
        case "DEEP_LINK":
            guard let link else { return nil }
            action = .deepLink(url: link)
            used.insert("link")
        case "OPEN_URL":
            guard let link else { return nil }
            action = PayloadNormalizer.isWebURL(link) ? .web(url: link, inApp: false) : .deepLink(url: link)
            used.insert("link")
        default:
            return nil
        }
        var id = "nhn_button\(index + 1)"
        for key in ["identifier", "id"] {
            if let given = object[key].flatMap(LenientValue.nonEmptyString) {
                id = given
                used.insert(key)
                break
            }
        }
        return (PushButton(id: id, title: name, action: action), used)
    }
}
