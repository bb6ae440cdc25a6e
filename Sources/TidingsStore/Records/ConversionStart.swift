/// When a message's conversion window opens for one recipient.
public enum ConversionStart: String, Sendable, Hashable, CaseIterable {
    /// At the delivery: the first `delivery` event, else the time the push was sent.
    case delivery
    /// At the first open of the app through the notification (`open`, `link_open`, `deeplink_open`,
    /// `screen_open`, or an `action` that opened the app); a recipient who never opened has no window.
    case open
}
