/// A simulated device a notification is previewed on: its iOS version, whether the app is on screen, and
/// what the person allowed.
public struct DeviceProfile: Sendable, Hashable {
    /// The kind of device, as the preview names it (`iPhone`).
    public var model: String
    /// The major iOS version.
    public var systemVersion: Int
    /// Whether the app is in the foreground, in the background or not running.
    public var appState: AppState
    public var settings: NotificationSettings
    /// The number on the app icon before the push arrives (the SDK's shared counter).
    public var badge: Int
    /// Unread inbox entries before the push arrives, for a badge that follows the inbox.
    public var inboxUnread: Int

    public init(
        model: String = "iPhone", systemVersion: Int, appState: AppState,
        settings: NotificationSettings = NotificationSettings(), badge: Int = 0, inboxUnread: Int = 0
    ) {
        self.model = model
        self.systemVersion = systemVersion
        self.appState = appState
        self.settings = settings
        self.badge = badge
        self.inboxUnread = inboxUnread
    }

    /// `iPhone, iOS 18, app in background`.
    public var name: String {
        let state =
            switch appState {
            case .foreground: "app in foreground"
            case .terminated: "app not running"
            case .background, .extension: "app in background"
            }
        return "\(model), iOS \(systemVersion), \(state)"
    }

    /// Whether the app counts as on screen when the push arrives (iOS asks it how to present the push).
    var isForeground: Bool { appState == .foreground }

    /// The profiles a dry run previews: a current iPhone with the app in the background and in the
    /// foreground, and an older iOS.
    public static let defaults: [DeviceProfile] = [
        DeviceProfile(systemVersion: 18, appState: .background),
        DeviceProfile(systemVersion: 18, appState: .foreground),
        DeviceProfile(systemVersion: 15, appState: .background),
    ]
}
