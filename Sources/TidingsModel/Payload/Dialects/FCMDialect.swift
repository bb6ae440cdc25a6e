/// Decodes pushes relayed by Firebase Cloud Messaging without a known vendor's keys.
///
/// - Ids: the message id is `gcm.message_id`; the campaign id is `google.c.a.c_id` (Firebase
///   Notifications campaigns); `google.c.a.ts` (seconds) is the send time.
/// - `fcm_options.image` is the media.
/// - FCM's transport keys (`gcm.*`, `google.*`, the rest of `fcm_options`) are kept in
///   ``PushPayload/unrecognized``, never in data; every other key is the app's ``PushPayload/data``, with
///   strings holding JSON objects or arrays parsed (FCM data values are strings).
enum FCMDialect {
    /// Whether the payload came through FCM: `gcm.message_id` or any `google.c.*` key.
    static func owns(_ root: [String: JSONValue]) -> Bool {
        root["gcm.message_id"] != nil || root.keys.contains { $0.hasPrefix("google.c.") }
    }

    static func decode(_ root: [String: JSONValue]) -> PushPayload {
        var payload = PushPayload(dialect: .fcm)
        var unrecognized = UnrecognizedKeys()
        var data: [String: JSONValue] = [:]
        for (key, value) in root {
            var read = true
            switch key {
            case "aps":
                APSDecoder.decode(value, into: &payload, unrecognized: &unrecognized)
            case "gcm.message_id":
                payload.messageID = LenientValue.nonEmptyString(value)
                read = payload.messageID != nil
            case "google.c.a.c_id":
                payload.campaignID = LenientValue.nonEmptyString(value)
                read = payload.campaignID != nil
            case "google.c.a.ts":
                payload.sentAt = LenientValue.timestamp(value)
                read = payload.sentAt != nil
            case "fcm_options":
                guard let options = LenientValue.object(value),
                    let image = options["image"].flatMap(LenientValue.nonEmptyString)
                else {
                    read = false
                    break
                }
                payload.media = PayloadNormalizer.media(source: .remote(url: image), type: nil, ext: nil, mime: nil)
                unrecognized.keep(options, at: [key], except: ["image"])
            case _ where PayloadNormalizer.isTransportKey(key):
                read = false
            default:
                data[key] = LenientValue.expandingEmbeddedJSON(value)
            }
            if !read { unrecognized.keep(value, at: [key]) }
        }
        payload.data = data
        payload.unrecognized = unrecognized.object
        return payload
    }
}
