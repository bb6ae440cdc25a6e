/// What erasing a user keeps and changes: the app's pseudonym key, the erasure itself, the tombstones that
/// refuse a silent re-binding, and the `user.deleted` notices waiting for each forwarder.
///
/// Digests and pseudonyms are computed by the caller (an HMAC under ``erasureKey(appID:proposed:now:)``), so the
/// store never needs the erased id again once ``eraseUser(_:)`` returns. ``Store`` refines this protocol; both
/// backends implement it.
public protocol ErasureStore: Sendable {
    /// The app's key for erasure digests: the stored one, or `proposed` (stored now) when the app has none yet,
    /// so concurrent first erasures on several instances agree; nil when it has none and nothing is proposed
    /// (no user of the app was ever erased). - Throws: ``StoreError/Code/notFound`` for an unknown app.
    func erasureKey(appID: String, proposed: [UInt8]?, now: Int64) throws -> [UInt8]?

    /// Erases every copy of `erasure.userID` the app's data holds, in one transaction: installations are unbound
    /// and lose their custom attributes, tags are deleted, the user's events lose the user id, value and
    /// attributes, message plans, queued deliveries and audit targets name ``UserErasure/pseudonym`` instead,
    /// kept idempotent answers that mention the id are dropped, the tombstone is written, and one
    /// `user.deleted` notice is queued for each of the app's forwarders.
    func eraseUser(_ erasure: UserErasure) throws -> ForgottenUser

    /// When the user whose digest is `digest` was last erased; nil when never.
    func userErasedAt(appID: String, digest: [UInt8]) throws -> Int64?

    /// The forwarder's `user.deleted` notices not delivered yet, oldest first.
    func erasureNotices(forwarderID: String, limit: Int) throws -> [ErasureNotice]
    /// Removes delivered notices (with them the erased ids they carry); returns how many went.
    @discardableResult
    func removeErasureNotices(forwarderID: String, ids: [String]) throws -> Int
}
