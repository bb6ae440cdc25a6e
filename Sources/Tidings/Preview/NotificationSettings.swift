/// What the person allowed for the app in Settings › Notifications, as a simulated device holds it.
public struct NotificationSettings: Sendable, Hashable {
    /// The authorisation: denied and not-yet-asked show nothing; provisional delivers quietly to Notification
    /// Center (no banner, sound or badge).
    public var permission: NotificationPermission
    /// Banners on screen (the alert style); off, notifications still go to Notification Center.
    public var banners: Bool
    public var sounds: Bool
    /// Badges on the app icon.
    public var badges: Bool

    public init(
        permission: NotificationPermission = .authorized, banners: Bool = true, sounds: Bool = true,
        badges: Bool = true
    ) {
        self.permission = permission
        self.banners = banners
        self.sounds = sounds
        self.badges = badges
    }

    /// What these settings let through of `options`: all of it when fully allowed; nothing but the list
    /// when delivered quietly.
    public func allowed(_ options: PresentationOptions) -> PresentationOptions {
        var allowed = options
        if permission == .provisional { allowed.subtract([.banner, .sound, .badge]) }
        if !banners { allowed.remove(.banner) }
        if !sounds { allowed.remove(.sound) }
        if !badges { allowed.remove(.badge) }
        return allowed
    }
}
