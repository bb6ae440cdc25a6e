/// Decodes MoEngage pushes: `aps`, `app_extra` (the app's keys) and `moengage` (the SDK's keys).
///
/// - Ids: the message id is `moengage.cid`; the campaign id is `moengage.moe_campaign_id`, else `cid`.
///   The app id is `moengage.app_id`; the campaign name stays in ``PushPayload/unrecognized``.
/// - Tap action, first present wins: `app_extra.moe_deeplink` (deep link, whatever its scheme),
///   `moengage.webUrl` (rich landing: a web page in an in-app browser), `app_extra.screenName` with
///   `screenData` (screen), `moengage.couponCode` (coupon). The coupon code is always ``PushPayload/coupon``.
///   Links that lose are kept in ``PushPayload/unrecognized``.
/// - `app_extra.screenData` pairs and other `app_extra` keys are also the app's ``PushPayload/data``,
///   as are top-level keys outside `aps`/`app_extra`/`moengage`.
/// - `moengage.silentPush` marks the push internal (uninstall tracking); `inbox_expiry` (seconds or
///   milliseconds) keeps it in the inbox until then; `media-attachment` with `media-type` is the media.
/// - MoEngage's `aps.badge` only takes 0 or 1, and 1 means "increment" (the SDK's extension adds one).
enum MoEngageDialect {
    /// Whether the payload is MoEngage's: a `moengage` object.
    static func owns(_ root: [String: JSONValue]) -> Bool {
        root["moengage"].flatMap(LenientValue.object) != nil
    }

    static func decode(_ root: [String: JSONValue]) -> PushPayload {
        var payload = PushPayload(dialect: .moengage)
        var unrecognized = UnrecognizedKeys()
        var data: [String: JSONValue] = [:]
        for (key, value) in root where key != "app_extra" && key != "moengage" {
            if key == "aps" {
                APSDecoder.decode(value, into: &payload, unrecognized: &unrecognized)
                if let badge = LenientValue.object(value)?["badge"], LenientValue.int(badge) == 1 {
                    payload.badge = .increment(1)
                }
            } else if PayloadNormalizer.isTransportKey(key) {
                unrecognized.keep(value, at: [key])
            } else {
                data[key] = value
            }
        }

        var actions: [(PushAction, path: [String], value: JSONValue)] = []
        if let appExtraValue = root["app_extra"] {
            if let appExtra = LenientValue.object(appExtraValue) {
                decodeAppExtra(appExtra, actions: &actions, data: &data, unrecognized: &unrecognized)
            } else {
                unrecognized.keep(appExtraValue, at: ["app_extra"])
            }
        }
        let moengage = root["moengage"].flatMap(LenientValue.object) ?? [:]
        decodeSDKKeys(moengage, into: &payload, actions: &actions, unrecognized: &unrecognized)

        // Order of preference: deep link, rich landing, screen, coupon.
        let rank: (PushAction) -> Int = {
            switch $0 {
            case .deepLink: return 0
            case .web: return 1
            case .screen: return 2
            default: return 3
            }
        }
        let sorted = actions.enumerated().sorted { (rank($0.element.0), $0.offset) < (rank($1.element.0), $1.offset) }
        payload.defaultAction = sorted.first?.element.0
        for loser in sorted.dropFirst() where loser.element.path.last != "couponCode" {
            unrecognized.keep(loser.element.value, at: loser.element.path)
        }
        payload.data = data
        payload.unrecognized = unrecognized.object
        return payload
    }

    private static func decodeAppExtra(
        _ appExtra: [String: JSONValue], actions: inout [(PushAction, path: [String], value: JSONValue)],
        data: inout [String: JSONValue], unrecognized: inout UnrecognizedKeys
    ) {
        var screenData: [String: JSONValue] = [:]
        for (key, value) in appExtra {
            switch key {
            case "moe_deeplink":
                if let url = LenientValue.nonEmptyString(value) {
                    actions.append((.deepLink(url: url), ["app_extra", key], value))
                } else {
                    unrecognized.keep(value, at: ["app_extra", key])
                }
            case "screenName":
                if LenientValue.nonEmptyString(value) == nil { unrecognized.keep(value, at: ["app_extra", key]) }
            case "screenData":
                if let pairs = LenientValue.object(value) {
                    screenData = pairs
                } else {
                    unrecognized.keep(value, at: ["app_extra", key])
                }
            default:
                data[key] = value
            }
        }
        data.merge(screenData) { _, pair in pair }
        if let screenValue = appExtra["screenName"], let name = LenientValue.nonEmptyString(screenValue) {
            actions.append((.screen(name: name, parameters: screenData), ["app_extra", "screenName"], screenValue))
        }
    }

    private static func decodeSDKKeys(
        _ moengage: [String: JSONValue], into payload: inout PushPayload,
        actions: inout [(PushAction, path: [String], value: JSONValue)], unrecognized: inout UnrecognizedKeys
    ) {
        var campaignID: String?
        var mediaURL: String?
        for (key, value) in moengage {
            var read = true
            switch key {
            case "silentPush":
                let flag = LenientValue.bool(value)
                payload.isInternal = flag ?? false
                read = flag != nil
            case "cid":
                payload.messageID = LenientValue.nonEmptyString(value)
                read = payload.messageID != nil
            case "moe_campaign_id":
                campaignID = LenientValue.nonEmptyString(value)
                read = campaignID != nil
            case "app_id":
                payload.appID = LenientValue.nonEmptyString(value)
                read = payload.appID != nil
            case "inbox_expiry":
                let expiry = LenientValue.timestamp(value)
                payload.inbox = expiry.map { InboxPolicy(expiresAt: $0) }
                read = expiry != nil
            case "webUrl":
                if let url = LenientValue.nonEmptyString(value) {
                    actions.append((.web(url: url, inApp: true), ["moengage", key], value))
                } else {
                    read = false
                }
            case "couponCode":
                payload.coupon = LenientValue.nonEmptyString(value)
                read = payload.coupon != nil
                if let code = payload.coupon { actions.append((.coupon(code: code), ["moengage", key], value)) }
            case "media-attachment":
                mediaURL = LenientValue.nonEmptyString(value)
                read = mediaURL != nil
            case "media-type":
                read = mediaURL != nil || moengage["media-attachment"].flatMap(LenientValue.nonEmptyString) != nil
            default:
                read = false
            }
            if !read { unrecognized.keep(value, at: ["moengage", key]) }
        }
        payload.campaignID = campaignID ?? payload.messageID
        if let mediaURL {
            payload.media = PayloadNormalizer.media(
                source: .remote(url: mediaURL), type: moengage["media-type"]?.stringValue, ext: nil, mime: nil)
        }
    }
}
