import Foundation

/// Payload files for the `tidings payload` tests, written to a temporary directory.
enum PayloadFixtures {
    /// The full MoEngage payload from the vendor's integration guide (seeds/000).
    static let moengage = """
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

    /// The native format's example (docs/payload-format.md): everything set, nothing wrong before its expiry.
    static let native = """
        {
          "aps": {"alert": {"title": "Your order has shipped", "body": "Track parcel 4417."}, "mutable-content": 1},
          "tidings": {
            "v": 1, "id": "msg_01HZX3K9V7Q2", "cid": "cmp_shipping", "app": "com.example.shop", "sent": 1767225600000,
            "badge": {"op": "increment", "by": 1},
            "action": {"type": "deeplink", "url": "shop://orders/4417"},
            "buttons": [
              {"id": "track", "title": "Track", "type": "web", "url": "https://shop.example.com/t/4417", "in_app": true},
              {"id": "reply", "title": "Ask", "type": "reply", "placeholder": "Your question"}
            ],
            "media": {"url": "https://cdn.example.com/parcel.jpg", "type": "image"},
            "inbox": {"expires_at": 1767830400},
            "data": {"order_id": "4417"}
          }
        }
        """

    /// A plain APNs alert with nothing to complain about but the missing message id (info).
    static let cleanAlert = #"{"aps":{"alert":{"title":"Sale","body":"50% off today"},"sound":"default"}}"#

    /// A background push: no alert, no message id.
    static let silent = #"{"aps":{"content-available":1}}"#

    /// Two errors (badge type, media without mutable-content is not visible in plain APNs) and a warning.
    static let badBadge = #"{"aps":{"alert":"Hi","badge":"3","offer":"SAVE10"}}"#

    /// Only warnings and info: an unknown aps key.
    static let warningsOnly = #"{"aps":{"alert":"Hi","offer":"SAVE10"}}"#

    /// A valid payload padded with a custom key to `size` bytes.
    static func padded(to size: Int) -> String {
        let head = #"{"aps":{"alert":"Hi"},"pad":""#
        let tail = #""}"#
        return head + String(repeating: "x", count: size - head.utf8.count - tail.utf8.count) + tail
    }

    /// Writes `contents` to a fresh temporary file and returns its path.
    static func file(_ contents: String) throws -> String {
        try file(Data(contents.utf8))
    }

    static func file(_ contents: Data) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-payload-\(UUID()).json")
        try contents.write(to: url)
        return url.path
    }
}
