import Foundation
import Testing
import TidingsModel

/// FCM-relayed pushes and plain APNs, key by key.
@Suite struct FCMDialectTests {
    static let cases: [DecodingCase] = [
        DecodingCase(
            "FCM notification with image and analytics",
            """
            {"aps": {"alert": {"title": "T", "body": "B"}, "mutable-content": 1}, "gcm.message_id": "0:17",
             "google.c.a.c_id": "123", "google.c.a.ts": "1700000000", "google.c.a.e": "1", "google.c.sender.id": "99",
             "fcm_options": {"image": "https://f/i.jpg"}, "order": "{\\"id\\": 3}"}
            """,
            PushPayload(
                dialect: .fcm, messageID: "0:17", campaignID: "123", sentAt: Date(timeIntervalSince1970: 1_700_000_000),
                alert: PushAlert(title: "T", body: "B"), mutableContent: true,
                media: PushMedia(
                    source: .remote(url: "https://f/i.jpg"), kind: .image, fileExtension: "jpg", mimeType: "image/jpeg"),
                data: ["order": ["id": 3]],
                unrecognized: ["google.c.a.e": "1", "google.c.sender.id": "99"])),
        DecodingCase(
            "fcm_options without image is a leftover",
            #"{"gcm.message_id": "1", "fcm_options": {"analytics_label": "x"}}"#,
            PushPayload(dialect: .fcm, messageID: "1", unrecognized: ["fcm_options": ["analytics_label": "x"]])),
        DecodingCase(
            "plain APNs: custom keys are data, simctl's key a leftover",
            #"{"aps": {"alert": "hi"}, "Simulator Target Bundle": "com.x", "threadRef": "{\"a\":1}"}"#,
            PushPayload(
                dialect: .apns, alert: PushAlert(body: "hi"), data: ["threadRef": "{\"a\":1}"],
                unrecognized: ["Simulator Target Bundle": "com.x"])),
    ]

    @Test(arguments: cases)
    func decodes(_ row: DecodingCase) throws {
        #expect(try decodePayload(row.json) == row.expected)
    }
}
