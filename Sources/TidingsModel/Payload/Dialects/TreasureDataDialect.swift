/// Decodes Treasure Data Engage Studio pushes: a flat data payload (FCM data, so every value may be a
/// string, and nested JSON a string holding it) beside `aps`.
///
/// - Ids: the campaign id is `td_campaign_id`, else `campaign_id` (the sample's test payload); the message
///   id is `message_id` (test payload only), else none — Engage Studio sends no per-send id.
/// - `title`/`body` fill the alert's missing title and body; when `aps.alert` already says otherwise they
///   are kept in ``PushPayload/unrecognized``.
/// - `image_url` is the media; `deeplink` (test payload) or `link`: an http(s) URL is a web page opened in
///   an in-app browser (the sample uses SafariServices), any other scheme a deep link. `deeplink` wins.
/// - Other keys are the app's ``PushPayload/data``, with strings holding JSON objects or arrays parsed.
enum TreasureDataDialect {
    /// Whether the payload is Treasure Data's: `td_campaign_id`, or the sample's test shape
    /// (`campaign_id` with `message_id`).
    static func owns(_ root: [String: JSONValue]) -> Bool {
        root["td_campaign_id"] != nil || (root["campaign_id"] != nil && root["message_id"] != nil)
    }

    static func decode(_ root: [String: JSONValue]) -> PushPayload {
        var payload = PushPayload(dialect: .treasuredata)
        var unrecognized = UnrecognizedKeys()
        var data: [String: JSONValue] = [:]
        if let aps = root["aps"] { APSDecoder.decode(aps, into: &payload, unrecognized: &unrecognized) }
        let tdCampaign = root["td_campaign_id"].flatMap(LenientValue.nonEmptyString)
        let linkKey = root["deeplink"].flatMap(LenientValue.nonEmptyString) != nil ? "deeplink" : "link"
        for (key, value) in root where key != "aps" {
            var read = true
            switch key {
            case "td_campaign_id":
                read = tdCampaign != nil
                payload.campaignID = tdCampaign ?? payload.campaignID
            case "campaign_id":
                let campaign = LenientValue.nonEmptyString(value)
                read = tdCampaign == nil && campaign != nil
                if read { payload.campaignID = campaign }
            case "message_id":
                payload.messageID = LenientValue.nonEmptyString(value)
                read = payload.messageID != nil
            case "title", "body":
                read = fillAlert(key, value, into: &payload)
            case "image_url":
                if let url = LenientValue.nonEmptyString(value) {
                    payload.media = PayloadNormalizer.media(source: .remote(url: url), type: nil, ext: nil, mime: nil)
                } else {
                    read = false
                }
            case "deeplink", "link":
                if key == linkKey, let url = LenientValue.nonEmptyString(value) {
                    payload.defaultAction = PayloadNormalizer.linkAction(url, inApp: true)
                } else {
                    read = false
                }
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

    /// Uses a flat `title`/`body` where the alert lacks it; true when it was used or repeats the alert.
    private static func fillAlert(_ key: String, _ value: JSONValue, into payload: inout PushPayload) -> Bool {
        guard let text = LenientValue.string(value) else { return false }
        var alert = payload.alert ?? PushAlert()
        let current = key == "title" ? alert.title : alert.body
        guard current == nil || current == text else { return false }
        if key == "title" { alert.title = text } else { alert.body = text }
        payload.alert = alert
        return true
    }
}
