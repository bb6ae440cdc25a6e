/// Notices that Tidings' notification-centre delegate was replaced after it was installed.
///
/// `UNUserNotificationCenter.delegate` holds one object; any later assignment (the app's code, another
/// vendor's SDK) silently unhooks Tidings: taps, dismissals and foreground pushes stop being handled. The
/// automatic integration checks at every foreground and logs once per unhooking, saying how to chain.
///
/// ```swift
/// if let warning = watch.check(tidingsIsDelegate: center.delegate === proxy) { logger.warning(warning) }
/// ```
public struct NotificationDelegateWatch: Sendable, Hashable {
    /// What is logged when the delegate was replaced.
    public static let warning =
        "UNUserNotificationCenter.delegate was replaced after Tidings installed its delegate; Tidings no longer "
        + "sees taps or foreground pushes. Set your delegate as integration.appNotificationDelegate (Tidings "
        + "forwards every push that is not its own), or forward to TidingsNotificationCenterDelegate from yours."

    private var reported = false

    public init() {}

    /// Checks the centre's delegate now.
    ///
    /// - Parameter tidingsIsDelegate: whether the centre's delegate is still Tidings' proxy.
    /// - Returns: the warning to log, the first time the proxy is found replaced; nil otherwise (and again
    ///   after it is put back and replaced anew).
    public mutating func check(tidingsIsDelegate: Bool) -> String? {
        if tidingsIsDelegate {
            reported = false
            return nil
        }
        guard !reported else { return nil }
        reported = true
        return Self.warning
    }
}
