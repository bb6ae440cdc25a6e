import Foundation

/// Payloads for the `tidings payload` tests; each suite writes them into its own ``TemporaryDirectory``.
enum PayloadFixtures {
    /// The full MoEngage payload from the vendor's integration guide (seeds/000).
    static let moengage = String(
        decoding: try! Data(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Fixtures/moengage-guide-000.json")), as: UTF8.self)

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
}
