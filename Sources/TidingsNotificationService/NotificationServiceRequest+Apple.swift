#if canImport(UIKit) && canImport(UserNotifications)
    import Foundation
    import Tidings
    import TidingsModel
    import UserNotifications

    extension NotificationServiceRequest {
        /// The request's identifier and content as plain values; `userInfo` already converted.
        init(_ request: UNNotificationRequest, userInfo: JSONValue) {
            let content = request.content
            self.init(
                identifier: request.identifier, userInfo: userInfo, title: content.title, subtitle: content.subtitle,
                body: content.body, categoryIdentifier: content.categoryIdentifier, badge: content.badge?.intValue)
        }
    }
#endif
