import Foundation
import Testing
import TidingsModel

/// MoEngage's `aps` + `app_extra` + `moengage`, key by key.
@Suite struct MoEngageDialectTests {
    static let cases: [DecodingCase] = [
        DecodingCase(
            "badge 1 increments, 0 clears", #"{"aps": {"badge": 1}, "moengage": {}}"#,
            PushPayload(dialect: .moengage, badge: .increment(1))),
        DecodingCase(
            "badge 0 clears", #"{"aps": {"badge": "0"}, "moengage": {}}"#,
            PushPayload(dialect: .moengage, badge: .clear)),
        DecodingCase(
            "silentPush as a string", #"{"aps": {"content-available": 1}, "moengage": {"silentPush": "1"}}"#,
            PushPayload(dialect: .moengage, contentAvailable: true, isInternal: true)),
        DecodingCase(
            "silentPush 0 is not internal", #"{"moengage": {"silentPush": 0}}"#, PushPayload(dialect: .moengage)),
        DecodingCase(
            "screen action with its data",
            #"{"moengage": {}, "app_extra": {"screenName": "cart", "screenData": {"sku": "1"}, "extra": true}}"#,
            PushPayload(
                dialect: .moengage, defaultAction: .screen(name: "cart", parameters: ["sku": "1"]),
                data: ["sku": "1", "extra": true])),
        DecodingCase(
            "screenData as a JSON string",
            #"{"moengage": {}, "app_extra": {"screenName": "s", "screenData": "{\"a\": 1}"}}"#,
            PushPayload(dialect: .moengage, defaultAction: .screen(name: "s", parameters: ["a": 1]), data: ["a": 1])),
        DecodingCase(
            "webUrl is rich landing in the app", #"{"moengage": {"webUrl": "https://m.example.com"}}"#,
            PushPayload(dialect: .moengage, defaultAction: .web(url: "https://m.example.com", inApp: true))),
        DecodingCase(
            "rich landing beats the screen",
            #"{"moengage": {"webUrl": "https://w"}, "app_extra": {"screenName": "s"}}"#,
            PushPayload(
                dialect: .moengage, defaultAction: .web(url: "https://w", inApp: true),
                unrecognized: ["app_extra": ["screenName": "s"]])),
        DecodingCase(
            "coupon alone is the action", #"{"moengage": {"couponCode": "APP200"}}"#,
            PushPayload(dialect: .moengage, defaultAction: .coupon(code: "APP200"), coupon: "APP200")),
        DecodingCase(
            "coupon beside a deep link stays the coupon field",
            #"{"moengage": {"couponCode": "C"}, "app_extra": {"moe_deeplink": "https://app.example.com/x"}}"#,
            PushPayload(dialect: .moengage, defaultAction: .deepLink(url: "https://app.example.com/x"), coupon: "C")),
        DecodingCase(
            "inbox expiry in milliseconds", #"{"moengage": {"inbox_expiry": 1571905058000}}"#,
            PushPayload(dialect: .moengage, inbox: InboxPolicy(expiresAt: Date(timeIntervalSince1970: 1_571_905_058)))),
        DecodingCase(
            "media type from media-type",
            #"{"moengage": {"media-attachment": "https://x/clip", "media-type": "video"}}"#,
            PushPayload(dialect: .moengage, media: PushMedia(source: .remote(url: "https://x/clip"), kind: .video))),
        DecodingCase(
            "media-type without media is a leftover", #"{"moengage": {"media-type": "image"}}"#,
            PushPayload(dialect: .moengage, unrecognized: ["moengage": ["media-type": "image"]])),
        DecodingCase(
            "rich features and unknown keys are leftovers; top-level keys are data",
            #"{"moengage": {"moeFeatures": {"richPush": {}}, "ios": {"sound": "a"}}, "promo": "x", "gcm.message_id": "1"}"#,
            PushPayload(
                dialect: .moengage, data: ["promo": "x"],
                unrecognized: [
                    "moengage": ["moeFeatures": ["richPush": [:]], "ios": ["sound": "a"]], "gcm.message_id": "1",
                ])),
        DecodingCase(
            "moengage as a JSON string", #"{"moengage": "{\"cid\": \"m\", \"app_id\": \"A\"}"}"#,
            PushPayload(dialect: .moengage, messageID: "m", campaignID: "m", appID: "A")),
        DecodingCase(
            "app_extra of the wrong type", #"{"moengage": {}, "app_extra": 5}"#,
            PushPayload(dialect: .moengage, unrecognized: ["app_extra": 5])),
    ]

    @Test(arguments: cases)
    func decodes(_ row: DecodingCase) throws {
        #expect(try decodePayload(row.json) == row.expected)
    }
}
