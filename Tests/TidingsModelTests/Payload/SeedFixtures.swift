import Foundation

/// The example payloads of the seed guides and the reference notes, reproduced as JSON text.
enum SeedFixtures {
    /// Seeds 000 and 001 (MoEngage): "iOS Push Payload" with every key explained.
    static let moEngageFullPayload = String(
        decoding: try! Data(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent()
                .appendingPathComponent("Fixtures/moengage-guide-000.json")), as: UTF8.self)

    /// Seed 000 (MoEngage): the silent push sent to the whole user base for uninstall tracking.
    static let moEngageUninstallSilentPush = """
        {"aps": {"content-available": 1}, "moengage": {"silentPush": 1}}
        """

    /// Seed 002 (Treasure Data Engage Studio): the data payload schema.
    static let treasureDataDataPayload = """
        {
          "aps": {
            "alert": {"title": "Special Offer!", "body": "Get 20% off your next purchase"},
            "content-available": 1,
            "category": "default"
          },
          "td_campaign_id": "cmp_20251214_promo",
          "title": "Special Offer!",
          "body": "Get 20% off your next purchase",
          "image_url": "https://cdn.example.com/banner.png",
          "link": "https://example.com/promo"
        }
        """

    /// Seed 002 (Treasure Data), English test workflow: `test-notification.apns` for `xcrun simctl push`.
    static let treasureDataSimulatorTestPayload = """
        {
          "Simulator Target Bundle": "com.example.myapp",
          "aps": {
            "alert": {"title": "Test Notification", "body": "This is a test message"},
            "sound": "default",
            "badge": 1
          },
          "campaign_id": "test_campaign",
          "message_id": "test_001",
          "deeplink": "myapp://test"
        }
        """

    /// Seed 002 (Treasure Data), Japanese test workflow: the same test payload with an image.
    static let treasureDataSimulatorTestPayloadWithImage = """
        {
          "Simulator Target Bundle": "com.example.myapp",
          "aps": {
            "alert": {"title": "テスト通知", "body": "これはテストメッセージです"},
            "sound": "default",
            "badge": 1
          },
          "campaign_id": "test_campaign",
          "message_id": "test_001",
          "deeplink": "myapp://test",
          "image_url": "https://example.com/image.jpg"
        }
        """

    /// Seed 003 and reference §3.2 (NHN Cloud): reserved words mapped into `aps`, the SDK's delivery receipt,
    /// a rich message with media and the three button kinds the seed lists, and custom keys at the top level.
    static let nhnCloudRichMessage = """
        {
          "aps": {"alert": {"title": "セール", "body": "本日限り"}, "badge": 3, "sound": "default", "mutable-content": 1},
          "messageDeliveryReceipt": true,
          "messageDeliveryReceiptData": {"messageId": 9007199254740993, "sentDateTime": "2024-05-01T12:00:00.000+09:00"},
          "richMessage": {
            "media": {"source": "https://cdn.example.com/sale.gif", "sourceType": "REMOTE", "mediaType": "GIF",
                      "extension": "gif", "expandable": true},
            "buttons": [
              {"name": "開く", "buttonType": "OPEN_APP"},
              {"name": "詳細", "buttonType": "OPEN_URL", "link": "https://example.com/sale"},
              {"name": "返信", "buttonType": "REPLY", "hint": "メッセージを入力", "submit": "送信"}
            ]
          },
          "orderId": "A-1001"
        }
        """

    /// Seed 004 and reference §4 (Braze): a background push, `content-available` with no title or body.
    static let brazeBackgroundPush = """
        {"aps": {"content-available": 1}, "ab": {"c": "c2VuZC0x"}, "refresh": "inbox"}
        """

    /// Reference §4 (Braze): an uninstall-tracking push, which `isInternalNotification` reports as internal.
    static let brazeUninstallTracking = """
        {"aps": {"content-available": 1}, "appboy_uninstall_tracking": true}
        """
}
