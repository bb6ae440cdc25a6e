#if canImport(UIKit) && canImport(UserNotifications)
    import Foundation
    import TidingsModel
    import UserNotifications

    extension NotificationResponseValues {
        /// The response's values; nil when its `userInfo` is not JSON (then it is not ours).
        public init?(_ response: UNNotificationResponse) {
            let request = response.notification.request
            guard let userInfo = try? JSONValue(foundationObject: request.content.userInfo) else { return nil }
            self.init(
                actionIdentifier: response.actionIdentifier,
                userText: (response as? UNTextInputNotificationResponse)?.userText, userInfo: userInfo,
                requestIdentifier: request.identifier)
        }
    }
#endif
