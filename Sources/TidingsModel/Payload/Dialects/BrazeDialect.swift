/// Decodes Braze pushes: `aps`, the `ab` dictionary, `ab_uri`/`ab_use_webview`, and Braze's internal keys.
///
/// - Ids (key names unverified for iOS): the message id is top-level `br_p_id` (Braze's per-send id on
///   Android), else `ab.c`; the campaign id is `ab.c`.
/// - `ab_uri`: an http(s) URL is a web page (in an in-app browser when `ab_use_webview` is true), any other
///   scheme a deep link.
/// - `ab.att.url` with `ab.att.type` (a file extension such as `jpg`) is the media.
/// - Internal pushes: `appboy_uninstall_tracking`, `ab_push_fetch_test_triggers_key`, `ab_sync_geos`
///   (geofence sync) and `br_ffr` (feature-flag refresh), at the top level or inside `ab`, unless `false`.
///   The keys themselves are kept in ``PushPayload/unrecognized``.
/// - Other `ab` keys (push stories, content cards, categories) are kept in ``PushPayload/unrecognized``;
///   other top-level keys are the app's ``PushPayload/data`` (Braze's key-value pairs).
enum BrazeDialect {
    /// The keys of Braze's system pushes (`Braze.Notifications.isInternalNotification`).
    static let internalKeys: Set<String> = [
        "appboy_uninstall_tracking", "ab_push_fetch_test_triggers_key", "ab_sync_geos", "br_ffr",
    ]

    /// Whether the payload is Braze's: a non-empty `ab` object or one of Braze's internal keys.
    static func owns(_ root: [String: JSONValue]) -> Bool {
        if let ab = root["ab"].flatMap(LenientValue.object), !ab.isEmpty { return true }
        return root.keys.contains(where: internalKeys.contains)
    }

    static func decode(_ root: [String: JSONValue]) -> PushPayload {
        var payload = PushPayload(dialect: .braze)
        var unrecognized = UnrecognizedKeys()
        var data: [String: JSONValue] = [:]
        var sendID: String?
        for (key, value) in root {
            switch key {
            case "aps":
                APSDecoder.decode(value, into: &payload, unrecognized: &unrecognized)
            case "ab":
                if let ab = LenientValue.object(value) {
                    decodeAB(ab, into: &payload, unrecognized: &unrecognized)
                } else {
                    unrecognized.keep(value, at: [key])
                }
            case "ab_uri":
                if let url = LenientValue.nonEmptyString(value) {
                    let inApp = root["ab_use_webview"].flatMap(LenientValue.bool) ?? false
                    payload.defaultAction = PayloadNormalizer.linkAction(url, inApp: inApp)
                } else {
                    unrecognized.keep(value, at: [key])
                }
            case "ab_use_webview":
                if root["ab_uri"].flatMap(LenientValue.nonEmptyString) == nil || LenientValue.bool(value) == nil {
                    unrecognized.keep(value, at: [key])
                }
            case "br_p_id":
                sendID = LenientValue.nonEmptyString(value)
                if sendID == nil { unrecognized.keep(value, at: [key]) }
            case _ where internalKeys.contains(key):
                if LenientValue.bool(value) != false { payload.isInternal = true }
                unrecognized.keep(value, at: [key])
            case _ where PayloadNormalizer.isTransportKey(key):
                unrecognized.keep(value, at: [key])
            default:
                data[key] = value
            }
        }
        payload.messageID = sendID ?? payload.campaignID
        payload.data = data
        payload.unrecognized = unrecognized.object
        return payload
    }

    private static func decodeAB(
        _ ab: [String: JSONValue], into payload: inout PushPayload, unrecognized: inout UnrecognizedKeys
    ) {
        for (key, value) in ab {
            switch key {
            case "c" where LenientValue.nonEmptyString(value) != nil:
                payload.campaignID = LenientValue.nonEmptyString(value)
            case "att":
                if let media = decodeAttachment(value, unrecognized: &unrecognized) {
                    payload.media = media
                } else {
                    unrecognized.keep(value, at: ["ab", key])
                }
            default:
                if internalKeys.contains(key) && LenientValue.bool(value) != false { payload.isInternal = true }
                unrecognized.keep(value, at: ["ab", key])
            }
        }
    }

    /// `ab.att`: `{"url", "type"}`, the type being the file's extension.
    private static func decodeAttachment(_ value: JSONValue, unrecognized: inout UnrecognizedKeys) -> PushMedia? {
        guard let att = LenientValue.object(value), let url = att["url"].flatMap(LenientValue.nonEmptyString) else {
            return nil
        }
        unrecognized.keep(att, at: ["ab", "att"], except: ["url", "type"])
        let type = att["type"]?.stringValue
        let typeIsExtension = type.map { PayloadNormalizer.knownExtensions[$0.lowercased()] != nil } ?? false
        return PayloadNormalizer.media(
            source: .remote(url: url), type: type, ext: typeIsExtension ? type : nil, mime: nil)
    }
}
