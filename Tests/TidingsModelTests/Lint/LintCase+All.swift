import Foundation
import TidingsModel

extension LintCase {
    private static func json(_ aps: String) -> String { #"{"aps":\#(aps)}"# }

    /// Every rule in the catalog appears here at least once (checked by `everyRuleHasACase`).
    static let all: [LintCase] = [
        LintCase(name: "4097 bytes", code: "payload_too_large", bad: input(size: 4097), good: input(size: 4096)),
        LintCase(
            name: "VoIP allows 5120", code: "payload_too_large", bad: input(size: 5121, voip: true),
            good: input(size: 5120, voip: true)),
        LintCase(
            name: "aps is a string", code: "aps_not_object", bad: input(json: #"{"aps":"hello"}"#),
            good: input(json: #"{"aps":{}}"#)),
        LintCase(name: "no aps", code: "no_aps", bad: input(json: #"{"data":1}"#), good: input(json: json("{}"))),
        LintCase(
            name: "custom key in aps", code: "unknown_aps_key", bad: input(json: json(#"{"alert":"Hi","offer":1}"#)),
            good: input(json: json(#"{"alert":"Hi","relevance-score":0.5,"stale-date":1}"#))),
        LintCase(
            name: "misspelt alert key", code: "unknown_alert_key",
            bad: input(json: json(#"{"alert":{"titel":"Hi"}}"#)),
            good: input(json: json(#"{"alert":{"title":"Hi","subtitle-loc-key":"K"}}"#))),
        LintCase(
            name: "badge as string", code: "aps_wrong_type", bad: input(json: json(#"{"badge":"3"}"#)),
            good: input(json: json(#"{"badge":3}"#))),
        LintCase(
            name: "negative badge", code: "aps_wrong_type", bad: input(json: json(#"{"badge":-1}"#)),
            good: input(json: json(#"{"badge":0}"#))),
        LintCase(
            name: "sound as bool", code: "aps_wrong_type", bad: input(json: json(#"{"sound":true}"#)),
            good: input(json: json(#"{"sound":{"name":"default","critical":1,"volume":0.5}}"#))),
        LintCase(
            name: "mutable-content as string", code: "aps_wrong_type",
            bad: input(json: json(#"{"mutable-content":"1"}"#)), good: input(json: json(#"{"mutable-content":1}"#))),
        LintCase(
            name: "alert title as number", code: "aps_wrong_type", bad: input(json: json(#"{"alert":{"title":5}}"#)),
            good: input(json: json(#"{"alert":{"title":"5","loc-args":["a"]}}"#))),
        LintCase(
            name: "content-available 2", code: "aps_flag_not_one",
            bad: input(json: json(#"{"content-available":2}"#)), good: input(json: json(#"{"content-available":1}"#))),
        LintCase(
            name: "content-available true", code: "aps_flag_not_one",
            bad: input(json: json(#"{"content-available":true}"#)), good: input(json: json(#"{"content-available":1}"#))
        ),
        LintCase(
            name: "mutable-content 0", code: "aps_flag_not_one", bad: input(json: json(#"{"mutable-content":0}"#)),
            good: input(json: json(#"{"mutable-content":1}"#))),
        LintCase(
            name: "empty thread-id", code: "empty_grouping_key", bad: input(json: json(#"{"thread-id":""}"#)),
            good: input(json: json(#"{"thread-id":"chat-7"}"#))),
        LintCase(
            name: "empty category in the model", code: "empty_grouping_key", bad: input(payload(category: "")),
            good: input(payload(category: "SALE"))),
        LintCase(
            name: "alert empty string", code: "empty_alert", bad: input(json: json(#"{"alert":""}"#)),
            good: input(json: json(#"{"alert":"Hi"}"#))),
        LintCase(
            name: "alert dict without text", code: "empty_alert",
            bad: input(json: json(#"{"alert":{"launch-image":"a.png"}}"#)),
            good: input(json: json(#"{"alert":{"loc-key":"WELCOME"}}"#))),
        LintCase(
            name: "vendor alert decoded empty", code: "empty_alert",
            bad: input(payload(alert: PushAlert()), json: "{}"),
            good: input(payload(alert: PushAlert(body: "Hi")), json: "{}")),
        LintCase(
            name: "loc-args alone", code: "loc_args_without_key",
            bad: input(payload(alert: PushAlert(title: "Hi", locArgs: ["a"]))),
            good: input(payload(alert: PushAlert(locKey: "K", locArgs: ["a"])))),
        LintCase(
            name: "silent push with text", code: "background_with_alert",
            bad: input(payload(contentAvailable: true)), good: input(payload(alert: nil, contentAvailable: true))),
        LintCase(
            name: "silent push with sound", code: "background_with_sound_or_badge",
            bad: input(payload(alert: nil, sound: .default, contentAvailable: true)),
            good: input(payload(alert: nil, contentAvailable: true))),
        LintCase(
            name: "silent push with badge", code: "background_with_sound_or_badge",
            bad: input(payload(alert: nil, badge: .set(2), contentAvailable: true)),
            good: input(payload(alert: nil, badge: .set(2)))),
        LintCase(
            name: "media", code: "mutable_content_missing",
            bad: input(payload(media: image("https://c.example/a.jpg"))),
            good: input(payload(mutableContent: true, media: image("https://c.example/a.jpg")))),
        LintCase(
            name: "buttons", code: "mutable_content_missing", bad: input(payload(buttons: buttons(["a"]))),
            good: input(payload(mutableContent: true, buttons: buttons(["a"])))),
        LintCase(
            name: "badge increment", code: "mutable_content_missing", bad: input(payload(badge: .increment(1))),
            good: input(payload(badge: .set(1)))),
        LintCase(
            name: "silent push with mutable-content", code: "mutable_content_without_alert",
            bad: input(payload(alert: nil, contentAvailable: true, mutableContent: true)),
            good: input(payload(mutableContent: true))),
        LintCase(
            name: "1.5", code: "relevance_score_out_of_range", bad: input(payload(relevanceScore: 1.5)),
            good: input(payload(relevanceScore: 1))),
        LintCase(
            name: "raw -0.1, Live Activities exempt", code: "relevance_score_out_of_range",
            bad: input(json: json(#"{"relevance-score":-0.1}"#)),
            good: input(json: json(#"{"event":"update","relevance-score":50,"content-state":{}}"#))),
        LintCase(
            name: "urgent", code: "unknown_interruption_level",
            bad: input(payload(interruptionLevel: InterruptionLevel(rawValue: "urgent"))),
            good: input(payload(interruptionLevel: .timeSensitive))),
        LintCase(
            name: "raw time-senstive typo", code: "unknown_interruption_level",
            bad: input(json: json(#"{"interruption-level":"time-senstive"}"#)),
            good: input(json: json(#"{"interruption-level":"passive"}"#))),
        LintCase(
            name: "volume 1.5", code: "critical_volume_out_of_range",
            bad: input(payload(sound: PushSound(name: "alarm.caf", isCritical: true, volume: 1.5))),
            good: input(payload(sound: PushSound(name: "alarm.caf", isCritical: true, volume: 1)))),
        LintCase(
            name: "critical sound without name", code: "sound_without_name",
            bad: input(json: json(#"{"alert":"Hi","sound":{"critical":1,"volume":1}}"#)),
            good: input(json: json(#"{"alert":"Hi","sound":{"critical":1,"name":"default","volume":1}}"#))),
        LintCase(
            name: "mp3 sound", code: "unsupported_sound_file", bad: input(payload(sound: PushSound(name: "ding.mp3"))),
            good: input(payload(sound: PushSound(name: "ding.CAF")))),
        LintCase(
            name: "sound without extension", code: "unsupported_sound_file",
            bad: input(payload(sound: PushSound(name: "ding"))), good: input(payload(sound: .default))),
        LintCase(
            name: "5 buttons", code: "too_many_buttons",
            bad: input(payload(mutableContent: true, buttons: buttons(["a", "b", "c", "d", "e"]))),
            good: input(payload(mutableContent: true, buttons: buttons(["a", "b", "c", "d"])))),
        LintCase(
            name: "4 NHN Cloud buttons", code: "buttons_over_vendor_limit",
            bad: input(payload(dialect: .nhncloud, mutableContent: true, buttons: buttons(["a", "b", "c", "d"]))),
            good: input(payload(dialect: .nhncloud, mutableContent: true, buttons: buttons(["a", "b", "c"])))),
        LintCase(
            name: "same id twice", code: "duplicate_button_id",
            bad: input(payload(mutableContent: true, buttons: buttons(["yes", "yes"]))),
            good: input(payload(mutableContent: true, buttons: buttons(["yes", "no"])))),
        LintCase(
            name: "empty id", code: "button_without_id",
            bad: input(payload(mutableContent: true, buttons: buttons([""]))),
            good: input(payload(mutableContent: true, buttons: buttons(["a"])))),
        LintCase(
            name: "reply without title", code: "button_without_title",
            bad: input(
                payload(
                    mutableContent: true,
                    buttons: [PushButton(id: "r", title: " ", action: .reply(placeholder: "Say", submitTitle: nil))])),
            good: input(
                payload(
                    mutableContent: true,
                    buttons: [PushButton(id: "r", title: "Reply", action: .reply(placeholder: nil, submitTitle: nil))]))
        ),
        LintCase(
            name: "deep link with a space", code: "invalid_action_url",
            bad: input(payload(action: .deepLink(url: "myapp://item/1 2"))),
            good: input(payload(action: .deepLink(url: "myapp://item/1%202")))),
        LintCase(
            name: "relative button link", code: "invalid_action_url",
            bad: input(
                payload(
                    mutableContent: true,
                    buttons: [PushButton(id: "w", title: "Open", action: .web(url: "/sale", inApp: true))])),
            good: input(
                payload(
                    mutableContent: true,
                    buttons: [
                        PushButton(id: "w", title: "Open", action: .web(url: "https://shop.example/sale", inApp: true))
                    ]))),
        LintCase(
            name: "web link without host", code: "invalid_action_url",
            bad: input(payload(action: .web(url: "https://", inApp: false))),
            good: input(payload(action: .web(url: "https://a.example:8443/x?y#z", inApp: false)))),
        LintCase(
            name: "web action with app scheme", code: "web_url_not_http",
            bad: input(payload(action: .web(url: "myapp://sale", inApp: true))),
            good: input(payload(action: .deepLink(url: "myapp://sale")))),
        LintCase(
            name: "relative media URL", code: "invalid_media_url",
            bad: input(payload(mutableContent: true, media: image("images/a.jpg"))),
            good: input(payload(mutableContent: true, media: image("https://cdn.example/images/a.jpg")))),
        LintCase(
            name: "http media", code: "media_url_not_https",
            bad: input(payload(mutableContent: true, media: image("http://cdn.example/a.jpg"))),
            good: input(payload(mutableContent: true, media: image("HTTPS://cdn.example/a.jpg")))),
        LintCase(
            name: "image that is an mp4", code: "media_kind_mismatch",
            bad: input(payload(mutableContent: true, media: image("https://cdn.example/clip.mp4?v=2"))),
            good: input(payload(mutableContent: true, media: image("https://cdn.example/clip.mp4?v=2", kind: .video)))),
        LintCase(
            name: "gif kind with png", code: "media_kind_mismatch",
            bad: input(payload(mutableContent: true, media: image("https://cdn.example/a.png", kind: .gif))),
            good: input(payload(mutableContent: true, media: image("https://cdn.example/a.gif", kind: .image)))),
        LintCase(
            name: "bundled name without extension", code: "bundled_media_without_extension",
            bad: input(payload(mutableContent: true, media: PushMedia(source: .bundled(name: "promo"), kind: .image))),
            good: input(
                payload(mutableContent: true, media: PushMedia(source: .bundled(name: "promo.png"), kind: .image)))),
        LintCase(
            name: "a minute ago", code: "inbox_expired",
            bad: input(payload(inbox: InboxPolicy(expiresAt: now.addingTimeInterval(-60)))),
            good: input(payload(inbox: InboxPolicy(expiresAt: now.addingTimeInterval(60))))),
        LintCase(
            name: "no id", code: "missing_message_id", bad: input(payload(messageID: nil)),
            good: input(payload(messageID: nil, alert: nil, isInternal: true))),
        LintCase(
            name: "vendor leftovers", code: "unrecognized_keys",
            bad: input(payload(unrecognized: ["moengage": ["moeFeatures": ["x": 1]]])),
            good: input(payload(unrecognized: ["aps": ["offer": 1]]))),
    ]
}
