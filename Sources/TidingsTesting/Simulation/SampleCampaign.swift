import Foundation
import TidingsModel

/// The rich campaign `tidings demo` sends: an image, two buttons (a deep link and a web page) and a deep
/// link on the body, to every installation of the app.
public enum SampleCampaign {
    public static let campaignID = "demo-weekend-picks"

    /// The `POST /v1/messages` body.
    public static func body(mediaURL: URL, target: JSONValue = ["all": true]) -> JSONValue {
        [
            "target": target,
            "kind": "alert",
            "campaign_id": .string(campaignID),
            "content": [
                "title": "Your weekend picks are here",
                "body": "Three new arrivals we think you will like.",
                "sound": "default",
                "media": ["url": .string(mediaURL.absoluteString), "type": "image"],
                "buttons": [
                    [
                        "id": "view", "title": "View picks",
                        "action": ["type": "deeplink", "url": "tidingsdemo://picks"],
                    ],
                    [
                        "id": "web", "title": "Open in browser",
                        "action": ["type": "web", "url": "https://example.com/picks"],
                    ],
                ],
                "default_action": ["type": "deeplink", "url": "tidingsdemo://picks/weekend"],
            ],
        ]
    }

    /// The same campaign split in two variants (different titles), each in English, Japanese and a default,
    /// with 10% held back as a control group and a `purchase` within 24 hours as its conversion goal: what
    /// `tidings demo` sends to show variant, language and conversion funnels.
    public static func splitBody(mediaURL: URL, target: JSONValue = ["all": true]) -> JSONValue {
        guard case .object(var body) = self.body(mediaURL: mediaURL, target: target),
            case .object(let content)? = body.removeValue(forKey: "content")
        else { return .null }
        func localized(_ titles: [String: String]) -> JSONValue {
            .object(
                titles.mapValues { title in
                    var localized = content
                    localized["title"] = .string(title)
                    return .object(localized)
                })
        }
        body["variants"] = [
            [
                "id": "picks", "weight": 1,
                "content": localized([
                    "default": "Your weekend picks are here", "en": "Your weekend picks are here",
                    "ja": "今週末のおすすめが届きました",
                ]),
            ],
            [
                "id": "new-arrivals", "weight": 1,
                "content": localized([
                    "default": "Three new arrivals for you", "en": "Three new arrivals for you",
                    "ja": "新着アイテムが3つあります",
                ]),
            ],
        ]
        body["control"] = 0.1
        // The split test's goal: a purchase the app tracks within a day of the delivery (or, for the control
        // group, of when it would have been sent).
        body["conversion"] = ["event": "purchase", "within": "24h", "from": "delivery"]
        return .object(body)
    }
}
