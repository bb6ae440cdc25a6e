/// An app's installations counted the ways the console's overview shows them.
public struct InstallationBreakdown: Sendable, Hashable {
    public var total = 0
    /// Installations holding at least one push token.
    public var withToken = 0
    /// By `platform` (`ios`, `android`, ...).
    public var byPlatform: [String: Int] = [:]
    /// By notification `permission` (`authorized`, `denied`, ...; `unknown` when never reported).
    public var byPermission: [String: Int] = [:]
    /// Installations whose user consented to notifications, and to ads.
    public var notificationConsent = 0
    public var adConsent = 0

    public init() {}
}
