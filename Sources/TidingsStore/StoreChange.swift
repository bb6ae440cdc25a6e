/// A committed write that changed something tidingsd instances keep in memory, so their caches drop it.
///
/// Only what is held in memory is announced: API keys, app settings, identity keys, push credentials, erasures,
/// and the cancelling of a message whose pushes fan-out workers hold queued. A change names what to drop, not the
/// new value; a cache reads the store again on the next request.
public enum StoreChange: Sendable, Hashable {
    /// A key was created or revoked; caches drop the key with this id.
    case key(id: String)
    /// An app's settings (bundle id, identity verification, request rate) changed.
    case app(id: String)
    /// An app's identity keys were added or removed.
    case identityKeys(appID: String)
    /// An app's APNs or FCM credentials changed.
    case pushCredentials(appID: String)
    /// A message was cancelled: fan-out workers drop the pushes of it they hold queued, unsent.
    case messageCancelled(id: String)
    /// A user of the app was erased, or the app's erasure key was made: caches of who is erased drop the app's.
    case erasures(appID: String)
    /// Changes may have been missed (the feed's connection to the database was lost and is back): caches drop
    /// everything they hold.
    case everything
}
