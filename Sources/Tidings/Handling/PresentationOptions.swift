/// How a notification is shown while the app is in the foreground; mirrors `UNNotificationPresentationOptions`.
///
/// The Apple shell converts this set once, in `userNotificationCenter(_:willPresent:withCompletionHandler:)`.
public struct PresentationOptions: OptionSet, Sendable, Hashable {
    public let rawValue: Int

    public init(rawValue: Int) { self.rawValue = rawValue }

    /// A banner at the top of the screen.
    public static let banner = PresentationOptions(rawValue: 1 << 0)
    /// An entry in Notification Center.
    public static let list = PresentationOptions(rawValue: 1 << 1)
    /// The notification's sound.
    public static let sound = PresentationOptions(rawValue: 1 << 2)
    /// The notification's badge.
    public static let badge = PresentationOptions(rawValue: 1 << 3)

    /// The default for our pushes in the foreground: shown like a background push would be.
    public static let standard: PresentationOptions = [.banner, .list, .sound, .badge]
}
