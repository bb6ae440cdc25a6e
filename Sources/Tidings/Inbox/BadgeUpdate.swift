/// What to do with the app icon's badge: leave it, or show a number (0 removes it).
public enum BadgeUpdate: Sendable, Hashable {
    case leave
    /// Pass to `UNUserNotificationCenter.setBadgeCount` (iOS 16+).
    case set(Int)
}
