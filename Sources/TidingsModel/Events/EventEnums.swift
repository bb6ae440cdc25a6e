/// Which process observed a notification event.
public enum EventSource: String, Sendable, Hashable, Codable, CaseIterable {
    /// The Notification Service Extension.
    case `extension`
    /// The app process (foreground presentation, tap, background fetch).
    case app
    /// The server or the OS on the app's behalf.
    case system
}

/// The app's state when an event happened.
public enum AppState: String, Sendable, Hashable, Codable, CaseIterable {
    case foreground
    case background
    case terminated
    /// Inside the Notification Service Extension, where the app's state is unknown.
    case `extension`
}

/// Which kind of push token an event or installation refers to.
public enum TokenType: String, Sendable, Hashable, Codable, CaseIterable {
    case apns
    case voip
    case fcm
}
