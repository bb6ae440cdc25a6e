import Foundation
import Tidings
import TidingsTesting

/// Builders shared by the handling tests: a handler with a fixed clock and numbered event ids.
enum HandlingFixtures {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func configuration() -> NotificationHandler.Configuration {
        var configuration = NotificationHandler.Configuration(installationID: "inst-1")
        configuration.userID = "user-7"
        configuration.sdkVersion = "1.0.0"
        configuration.appVersion = "3.2"
        configuration.clock = ManualClock(now: now)
        let counter = LockedBox(0)
        configuration.makeEventID = {
            let next = counter.withLock { value -> Int in
                value += 1
                return value
            }
            return UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", next))!
        }
        configuration.deepLinks = DeepLinkAllowList(schemes: ["myapp"], hosts: ["example.com", "*.shop.example"])
        return configuration
    }

    static func handler(_ change: (inout NotificationHandler.Configuration) -> Void = { _ in }) -> NotificationHandler {
        var configuration = configuration()
        change(&configuration)
        return NotificationHandler(configuration: configuration)
    }

    /// A native push with message id `m-1` and campaign `c-1`.
    static func native(
        action: PushAction? = nil, buttons: [PushButton] = [], coupon: String? = nil, isInternal: Bool = false,
        contentAvailable: Bool = false, alert: PushAlert? = PushAlert(title: "Hi", body: "There")
    ) -> JSONValue {
        PushPayload(
            messageID: "m-1", campaignID: "c-1", alert: alert, contentAvailable: contentAvailable,
            isInternal: isInternal, defaultAction: action, buttons: buttons, coupon: coupon
        ).nativeJSON
    }

    static let brazeUninstall: JSONValue = ["aps": ["content-available": 1], "appboy_uninstall_tracking": true]
    static let moengageSilent: JSONValue = [
        "aps": ["content-available": 1], "moengage": ["silentPush": 1, "cid": "moe-1"],
    ]
    static let brazeAlert: JSONValue = ["aps": ["alert": "Sale"], "ab": ["c": "braze-campaign"]]
}
