/// Live Activity tokens (docs/live-activities.md): per-activity update tokens and per-attributes-type
/// push-to-start tokens of installations, the outcome of the last push to each, and the per-activity budget
/// of priority-10 pushes.
///
/// Like the rest of ``Store``, every call is atomic and scoped by app.
public protocol LiveActivityStore: Sendable {
    /// Registers or refreshes a token: one row per (installation, kind, ``LiveActivityToken/scope``). A token
    /// another row of the app holds moves here (a device that reinstalled, an activity that restarted).
    /// The stored `createdAt` of a refreshed row is kept; the outcome of its last push is cleared.
    /// - Returns: the stored token and whether it was created.
    /// - Throws: ``StoreError/Code/notFound`` when the installation does not exist.
    func upsertLiveActivityToken(_ token: LiveActivityToken) throws -> (token: LiveActivityToken, created: Bool)

    /// Removes the token of `kind` with `scope` (the activity id, or the attributes type for push-to-start);
    /// false when there was none.
    @discardableResult
    func removeLiveActivityToken(
        appID: String, installationID: String, kind: LiveActivityToken.Kind, scope: String
    ) throws -> Bool

    /// Removes the app's row holding `token` (APNs answered 410 Unregistered); false when none did.
    @discardableResult
    func removeLiveActivityToken(appID: String, token: String) throws -> Bool

    /// The update tokens of the activity `activityID`, on every installation that registered one, ordered
    /// by installation id.
    func liveActivityTokens(appID: String, activityID: String) throws -> [LiveActivityToken]

    /// The tokens of `kind` of the installations `installationIDs`, ordered by installation id then scope.
    func liveActivityTokens(
        appID: String, installationIDs: [String], kind: LiveActivityToken.Kind
    ) throws -> [LiveActivityToken]

    /// Notes the answer to a push to `token`: `sent`, or the APNs reason.
    func recordLiveActivityOutcome(appID: String, token: String, outcome: String, at: Int64) throws

    /// Takes one priority-10 push from the activity's budget for the window that starts at `windowStart`:
    /// true when fewer than `limit` were taken in that window (a later window starts again from zero).
    func takeLiveActivityBudget(appID: String, activityID: String, windowStart: Int64, limit: Int) throws -> Bool

    /// Removes the app's update tokens not refreshed since `updatedBefore` (their activity has outlived the
    /// longest life iOS gives one); returns how many.
    @discardableResult
    func pruneLiveActivityTokens(appID: String, updatedBefore: Int64) throws -> Int
}
