import Foundation
import Tidings

/// Payloads and profiles shared by the preview tests.
enum PreviewFixtures {
    static let background = DeviceProfile(systemVersion: 18, appState: .background)
    static let foreground = DeviceProfile(systemVersion: 18, appState: .foreground)

    /// An app that opens `myapp://` links and `example.com` universal links.
    static func configuration(
        _ change: (inout NotificationPreviewer.Configuration) -> Void = { _ in }
    ) -> NotificationPreviewer.Configuration {
        var configuration = NotificationPreviewer.Configuration()
        configuration.deepLinks = DeepLinkAllowList(schemes: ["myapp"], hosts: ["example.com"])
        change(&configuration)
        return configuration
    }

    static func preview(
        _ payload: JSONValue, on profile: DeviceProfile = background, media hint: MediaHint? = nil,
        _ change: (inout NotificationPreviewer.Configuration) -> Void = { _ in }
    ) -> NotificationPreview {
        NotificationPreviewer(configuration: configuration(change)).preview(userInfo: payload, on: profile, media: hint)
    }

    /// A native push as tidingsd sends it: mutable content, an image, two buttons, an increment and an inbox entry.
    static func native(
        action: PushAction? = .deepLink(url: "myapp://offer/1"),
        media: PushMedia? = PushMedia(source: .remote(url: "https://cdn.example.com/sale.jpg"), kind: .image),
        buttons: [PushButton] = [
            PushButton(id: "buy", title: "Buy", action: .deepLink(url: "myapp://buy")),
            PushButton(id: "later", title: "Later", action: .dismiss, isDestructive: true),
        ],
        mutableContent: Bool = true
    ) -> JSONValue {
        PushPayload(
            messageID: "m-1", campaignID: "c-1",
            alert: PushAlert(title: "Sale", subtitle: "Shoes", body: "Today only"), sound: .default,
            badge: .increment(1), mutableContent: mutableContent, defaultAction: action, buttons: buttons,
            media: media, inbox: InboxPolicy(expiresAt: nil)
        ).nativeJSON
    }

    static let moengage: JSONValue = [
        "aps": [
            "alert": ["title": "Flash sale", "body": "50% off"], "badge": 1, "sound": "default",
            "mutable-content": 1,
        ],
        "app_extra": ["moe_deeplink": "myapp://sale"],
        "moengage": [
            "cid": "moe-1", "moe_campaign_id": "moe-c", "media-attachment": "https://image.moengage.com/sale.png",
            "media-type": "image",
        ],
    ]

    static let braze: JSONValue = [
        "aps": ["alert": ["title": "Back in stock", "body": "Your size is here"], "mutable-content": 1],
        "ab": ["c": "braze-c", "att": ["url": "https://braze.example.com/shoe.gif", "type": "gif"]],
        "ab_uri": "https://shop.example.net/shoes", "ab_use_webview": true,
    ]
}
