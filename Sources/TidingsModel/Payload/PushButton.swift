/// A notification button (`UNNotificationAction`), and what it does.
public struct PushButton: Sendable, Hashable {
    /// What a button does when tapped.
    public enum Action: Sendable, Hashable {
        case openApp
        case deepLink(url: String)
        case web(url: String, inApp: Bool)
        /// Shows a text field; the text goes to the app (not to analytics unless the app opts in).
        case reply(placeholder: String?, submitTitle: String?)
        /// Dismisses the notification without opening the app.
        case dismiss
        /// Handled by the app's own code, identified by the button id.
        case custom
    }

    /// The action identifier reported in `action` events.
    public var id: String
    public var title: String
    public var action: Action
    /// Red, for actions that delete or cancel.
    public var isDestructive: Bool
    /// The device must be unlocked first.
    public var requiresAuthentication: Bool

    public init(
        id: String, title: String, action: Action, isDestructive: Bool = false, requiresAuthentication: Bool = false
    ) {
        self.id = id
        self.title = title
        self.action = action
        self.isDestructive = isDestructive
        self.requiresAuthentication = requiresAuthentication
    }

    /// iOS shows at most this many buttons on a notification.
    public static let maximumShown = 4
}
