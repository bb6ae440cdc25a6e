/// The `event` of an ActivityKit push: what it does to the activity on the device.
public enum LiveActivityEvent: String, Sendable, Hashable, CaseIterable {
    /// Starts a new activity through a push-to-start token (iOS 17.2+); carries `attributes-type` and
    /// `attributes`.
    case start
    /// Changes a running activity's `content-state`.
    case update
    /// Ends the activity; it stays on the Lock Screen until its `dismissal-date` (up to four hours).
    case end
}
