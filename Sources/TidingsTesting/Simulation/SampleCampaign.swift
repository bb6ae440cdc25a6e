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
}
