/// What the person allowed for notifications, as `UNAuthorizationStatus` reports it.
public enum NotificationPermission: String, Sendable, Hashable, CaseIterable {
    case authorized
    case provisional
    case ephemeral
    case denied
    case notDetermined = "not_determined"

    /// Whether an alert push can reach the person, so the APNs and FCM tokens are worth sending.
    public var allowsAlerts: Bool {
        switch self {
        case .authorized, .provisional, .ephemeral: true
        case .denied, .notDetermined: false
        }
    }
}
