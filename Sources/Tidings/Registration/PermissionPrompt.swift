/// The system calls behind asking for notification permission, so the flow is tested without iOS.
///
/// The Apple glue implements it with `UNUserNotificationCenter` and `UIApplication`.
public protocol PermissionPrompt: Sendable {
    /// `notificationSettings().authorizationStatus`.
    func currentPermission() async -> NotificationPermission
    /// `requestAuthorization(options:)`; iOS shows its prompt only the first time.
    func requestAuthorization() async throws
    /// `registerForRemoteNotifications()`.
    func registerForRemoteNotifications() async
}
