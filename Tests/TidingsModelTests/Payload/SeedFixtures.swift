/// The example payloads of the seed guides and the reference notes, reproduced as JSON text.
enum SeedFixtures {
    /// Seeds 000 and 001 (MoEngage): "iOS Push Payload" with every key explained.
    static let moEngageFullPayload = """
        {
          "aps": {
            "alert": {"title": "Notification Title", "subtitle": "Notification Subtitle", "body": "Notification Body"},
            "badge": 1,
            "sound": "default",
            "category": "INVITE_CATEGORY",
            "content-available": 1,
            "mutable-content": 1
          },
          "app_extra": {
            "moe_deeplink": "moeapp://screen/settings",
            "screenName": "Screen Name",
            "screenData": {"key1": "val1", "key2": "val2"}
          },
          "moengage": {
            "silentPush": 1,
            "cid": "55f2ba15a4ab4104a287bf88",
            "app_id": "DAO6UGZ73D9RTK8B5W96TPYN_DEBUG",
            "moe_campaign_id": "55f2ba15a4ab4104a287bf88",
            "moe_campaign_name": "Campaign Name",
            "inbox_expiry": "1571905058",
            "webUrl": "https://google.com",
            "couponCode": "APP200",
            "media-attachment": "https://image.moengage.com/testImg.png",
            "media-type": "image"
          }
        }
        """

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
