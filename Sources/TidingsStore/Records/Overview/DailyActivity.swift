/// One UTC day of an app's sending: pushes sent and failed (from the deliveries), deliveries and opens the
/// devices reported (from the events).
public struct DailyActivity: Sendable, Hashable {
    /// The day's start, in milliseconds since 1970 (UTC midnight).
    public var day: Int64
    public var sent = 0
    public var failed = 0
    /// Deliveries (message and installation) first recorded that day.
    public var delivered = 0
    /// Of those deliveries, the ones opened (the body, a link or screen, or a button the SDK says opened the
    /// app), whenever the open came: never more than `delivered`.
    public var opened = 0

    public init(day: Int64, sent: Int = 0, failed: Int = 0, delivered: Int = 0, opened: Int = 0) {
        self.day = day
        self.sent = sent
        self.failed = failed
        self.delivered = delivered
        self.opened = opened
    }

    /// A day in milliseconds.
    public static let dayMilliseconds: Int64 = 86_400_000
}
