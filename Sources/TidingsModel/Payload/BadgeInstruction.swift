/// What to do with the app icon's badge.
///
/// APNs itself knows only "set" (`aps.badge: n`) and "clear" (`aps.badge: 0`); "increment" is done by the
/// Notification Service Extension from a shared counter, so it needs `mutable-content`.
public enum BadgeInstruction: Sendable, Hashable {
    /// Leave the badge as it is.
    case none
    /// Show exactly this number (greater than zero).
    case set(Int)
    /// Add this number to the current badge.
    case increment(Int)
    /// Remove the badge.
    case clear
}
