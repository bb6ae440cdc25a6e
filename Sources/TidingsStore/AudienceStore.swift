/// What audiences need of the store: the installations an ``AudienceExpression`` selects, a page at a time, and
/// how many there are.
///
/// Both backends translate the expression into one SQL statement with bound parameters; version comparisons use
/// `tidings_version_key` (``VersionKey``). `now` is what relative times (`30d ago`) count back from: a resolver
/// passes the same instant for every chunk of one message, so the audience does not shift while it is read.
public protocol AudienceStore: Sendable {
    /// Up to `limit` of `appID`'s installations in `audience`, in installation-id order after
    /// `afterInstallationID`.
    func installations(
        appID: String, audience: AudienceExpression, afterInstallationID: String?, limit: Int, now: Int64
    ) throws -> [Installation]
    /// Which of `installationIDs` (of `appID`) are in `audience` at `now`: a claimed chunk's, checked again when
    /// they become due.
    func installationIDs(appID: String, audience: AudienceExpression, among installationIDs: [String], now: Int64)
        throws -> Set<String>
    /// How many of `appID`'s installations are in `audience`.
    func countInstallations(appID: String, audience: AudienceExpression, now: Int64) throws -> Int
}
