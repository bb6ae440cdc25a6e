import Foundation
import Testing
import TidingsModel

/// NHN Cloud's receipt and rich message, key by key.
@Suite struct NHNCloudDialectTests {
    static let cases: [DecodingCase] = [
        DecodingCase(
            "receipt with UTC time and unknown receipt keys",
            #"{"messageDeliveryReceipt": true, "messageDeliveryReceiptData": {"messageId": 77, "sentDateTime": "2024-05-01T03:00:00Z", "x": 1}}"#,
            PushPayload(
                dialect: .nhncloud, messageID: "77", campaignID: "77",
                sentAt: Date(timeIntervalSince1970: 1_714_532_400),
                unrecognized: ["messageDeliveryReceipt": true, "messageDeliveryReceiptData": ["x": 1]])),
        DecodingCase(
            "local media is bundled in the extension",
            #"{"richMessage": {"media": {"source": "promo.mp4", "sourceType": "LOCAL", "mediaType": "VIDEO"}}}"#,
            PushPayload(
                dialect: .nhncloud,
                media: PushMedia(
                    source: .bundled(name: "promo.mp4"), kind: .video, fileExtension: "mp4", mimeType: "video/mp4"))),
        DecodingCase(
            "iosMedia wins over media",
            #"{"richMessage": {"media": {"source": "https://n/a.png"}, "iosMedia": {"source": "https://n/b.mp3", "mediaType": "AUDIO", "extension": "mp3"}}}"#,
            PushPayload(
                dialect: .nhncloud,
                media: PushMedia(
                    source: .remote(url: "https://n/b.mp3"), kind: .audio, fileExtension: "mp3", mimeType: "audio/mpeg"),
                unrecognized: ["richMessage": ["media": ["source": "https://n/a.png"]]])),
        DecodingCase(
            "deep link, dismiss, custom-scheme OPEN_URL and Notification Hub reply buttons; ids given or numbered",
            """
            {"richMessage": {"buttons": [
              {"name": "Go", "buttonType": "DEEP_LINK", "link": "nhnapp://go", "identifier": "go"},
              {"name": "Close", "buttonType": "DISMISS"},
              {"name": "Tel", "buttonType": "OPEN_URL", "link": "tel:123"},
              {"name": "Answer", "buttonType": "reply", "hint": "Text", "submitName": "Send"}
            ]}}
            """,
            PushPayload(
                dialect: .nhncloud,
                buttons: [
                    PushButton(id: "go", title: "Go", action: .deepLink(url: "nhnapp://go")),
                    PushButton(id: "nhn_button2", title: "Close", action: .dismiss),
                    PushButton(id: "nhn_button3", title: "Tel", action: .deepLink(url: "tel:123")),
                    PushButton(
                        id: "nhn_button4", title: "Answer", action: .reply(placeholder: "Text", submitTitle: "Send")),
                ])),
        DecodingCase(
            "rich message as a JSON string; bad buttons kept",
            #"{"richMessage": "{\"buttons\": [{\"name\": \"X\", \"buttonType\": \"TELEPORT\"}, {\"name\": \"Y\", \"buttonType\": \"OPEN_URL\"}]}"}"#,
            PushPayload(
                dialect: .nhncloud,
                unrecognized: [
                    "richMessage": [
                        "buttons": [["name": "X", "buttonType": "TELEPORT"], ["name": "Y", "buttonType": "OPEN_URL"]]
                    ]
                ])),
        DecodingCase(
            "rich message of the wrong type and custom keys",
            #"{"richMessage": 3, "messageDeliveryReceiptData": {"messageId": "12"}, "coupon": "N1"}"#,
            PushPayload(
                dialect: .nhncloud, messageID: "12", campaignID: "12", data: ["coupon": "N1"],
                unrecognized: ["richMessage": 3])),
    ]

    @Test(arguments: cases)
    func decodes(_ row: DecodingCase) throws {
        #expect(try decodePayload(row.json) == row.expected)
    }
}
