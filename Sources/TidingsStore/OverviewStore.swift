import TidingsModel

/// The reads behind the console's pages that the public API's other routes do not make: an app's overview,
/// its messages newest first, and one installation's deliveries and events.
///
/// Each read is bounded (a `limit`, or a time window of whole days) and served by an index.
public protocol OverviewStore: Sendable {
    /// The app's installations, counted by platform, permission and consent.
    func installationBreakdown(appID: String) throws -> InstallationBreakdown
    /// One entry per UTC day from the day holding `since` to now, oldest first; days with nothing are
    /// present with zeros only when another day after them has activity (the caller fills gaps).
    func dailyActivity(appID: String, since: Int64) throws -> [DailyActivity]
    /// Failed deliveries updated since `since`, by reason.
    func failuresByReason(appID: String, since: Int64) throws -> [String: Int]
    /// Messages newest first, those created before `createdBefore` when given, at most `limit`.
    func recentMessages(appID: String, createdBefore: Int64?, limit: Int) throws -> [MessageRecord]
    /// The installation's deliveries with when each last changed, newest first, at most `limit`.
    func deliveries(appID: String, installationID: String, limit: Int) throws -> [(
        delivery: MessageDelivery, updatedAt: Int64
    )]
    /// The installation's events, newest first, at most `limit`.
    func events(appID: String, installationID: String, limit: Int) throws -> [StoredEvent]
    /// Installations holding a token (APNs, VoIP or FCM) that starts with `tokenPrefix`, at most `limit`.
    func installations(appID: String, tokenPrefix: String, limit: Int) throws -> [Installation]
}
