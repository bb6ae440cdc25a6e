/// How a push reaches the app.
public enum DeliveryKind: String, Sendable, Hashable, CaseIterable {
    /// Shown to the person (alert, sound or badge).
    case alert
    /// `content-available` with nothing visible: the app is woken in the background.
    case background
    /// Shown, and the app is also woken (`content-available` with an alert).
    case alertAndBackground = "alert_and_background"
}

/// The classification an app gates its own work on.
public enum PushKind: String, Sendable, Hashable, CaseIterable {
    /// Meant for the person.
    case alert
    /// A background push meant for the app.
    case background
    /// A vendor's or Tidings' own system push (uninstall tracking, sync): not content, no app work.
    case `internal`
}
