#if canImport(UIKit) && canImport(UserNotifications)
    import UIKit
    import UserNotifications

    /// ``PermissionPrompt`` over `UNUserNotificationCenter` and `UIApplication`.
    public struct UserNotificationsPermissionPrompt: PermissionPrompt {
        public let options: UNAuthorizationOptions

        public init(options: UNAuthorizationOptions = [.alert, .sound, .badge]) {
            self.options = options
        }

        public func currentPermission() async -> NotificationPermission {
            TidingsClient.permission(
                await UNUserNotificationCenter.current().notificationSettings().authorizationStatus)
        }

        public func requestAuthorization() async throws {
            _ = try await UNUserNotificationCenter.current().requestAuthorization(options: options)
        }

        public func registerForRemoteNotifications() async {
            await MainActor.run { UIApplication.shared.registerForRemoteNotifications() }
        }
    }
#endif
