import TidingsModel

/// Everything `tidingsd` keeps: apps, keys, installations, user tags, events, and messages with their
/// deliveries.
///
/// Methods are synchronous and throwing: a store call is a few short statements, so handlers call it
/// directly from their task rather than hopping to another executor. Each method is atomic — it either
/// applies entirely or throws and changes nothing — and safe to call from many tasks at once.
/// Every read and write of app data is scoped by `appID`: one app never sees another's rows.
///
/// Refusals the caller can act on are ``StoreError``; backend failures propagate as the backend's error.
/// The SQL behind ``SQLiteStore`` sticks to what PostgreSQL also speaks (`ON CONFLICT`, partial indexes),
/// and the store test suite is written against this protocol so every backend runs it.
public protocol Store:
    Sendable, ClusterStore, EventRetentionStore, ForwardingStore, SendControlStore, CampaignStore, LiveActivityStore,
    OperatorStore, OverviewStore, AudienceStore, PushCredentialStore, IdempotencyStore, SecretsAtRestStore,
    ErasureStore, SecondFactorStore, SignInThrottleStore, WinnerStore, ImportStore, JourneyStore, UserProfileStore,
    SegmentStore, JourneyStepTestStore, JourneySegmentStore
{
    // MARK: Changes

    /// Announces committed changes to what instances cache (keys, app settings, identity keys, credentials):
    /// this process's writes on every backend, and every instance's on PostgreSQL (LISTEN/NOTIFY).
    var changes: StoreChangeFeed { get }

    // MARK: Instances

    /// Records that the tidingsd instance `instanceID` is alive: a real write, so it also proves the store takes
    /// writes (`/readyz`). PostgreSQL, shared by several hosts, records its own clock (`clock_timestamp()`);
    /// SQLite records `now`.
    func recordHeartbeat(instanceID: String, now: Int64) throws

    // MARK: Apps

    /// Adds an app. - Throws: ``StoreError/Code/conflict`` when the id or name is taken.
    func createApp(_ app: AppRecord) throws
    func app(id: String) throws -> AppRecord?
    func app(named name: String) throws -> AppRecord?
    /// Every app, oldest first.
    func apps() throws -> [AppRecord]
    /// Replaces an app's settings (bundle id, identity verification, rate); its id, name and creation stay.
    /// - Throws: ``StoreError/Code/notFound``.
    func updateApp(_ app: AppRecord) throws

    // MARK: Identity keys

    /// Adds a key the app's backend signs user tokens with.
    /// - Throws: ``StoreError/Code/notFound`` for an unknown app, ``StoreError/Code/conflict`` for a taken key id.
    func addIdentityKey(_ key: IdentityKeyRecord) throws
    /// The app's identity keys, oldest first.
    func identityKeys(appID: String) throws -> [IdentityKeyRecord]
    /// Removes one; false when the app has no such key.
    @discardableResult
    func removeIdentityKey(appID: String, keyID: String) throws -> Bool

    // MARK: Keys

    /// Adds a key. - Throws: ``StoreError/Code/notFound`` when its app does not exist.
    func createKey(_ key: APIKeyRecord) throws
    /// The key whose SHA-256 digest is `hash`, revoked or not.
    func key(hash: [UInt8]) throws -> APIKeyRecord?
    /// Every key of `appID`, or of every app when nil, oldest first.
    func keys(appID: String?) throws -> [APIKeyRecord]
    /// Marks a key revoked at `at` (a second revocation keeps the first time) and returns it.
    /// - Throws: ``StoreError/Code/notFound``.
    @discardableResult
    func revokeKey(id: String, at: Int64) throws -> APIKeyRecord

    // MARK: Installations

    /// Creates or changes an installation, atomically: `prepare` sees the stored installation (nil when there is
    /// none) inside the transaction and returns the update to apply, or throws to change nothing. It is where
    /// ownership (the installation secret) and identity (the verified user) are checked, so no other write
    /// can slip in between the check and the change.
    ///
    /// A token set here is taken from any other installation of the app that held it, and its registration
    /// time is now (also when the device presents the same token again). Setting the user to nil keeps the
    /// tokens.
    /// - Returns: The stored installation and whether it was created.
    func upsertInstallation(
        appID: String, installationID: String, now: Int64,
        prepare: (_ existing: Installation?) throws -> InstallationUpdate
    ) throws -> (installation: Installation, created: Bool)
    /// The same upsert without waiting for it: `completion` gets what the other form returns or throws, on
    /// this thread or later on the thread that writes the upsert's group. For a caller with other work to
    /// do meanwhile (a network thread serving other connections), so that a busy store's group commit holds
    /// no caller's thread. `prepare` may run on another thread, and twice, as in the other form.
    func upsertInstallation(
        appID: String, installationID: String, now: Int64,
        prepare: @escaping @Sendable (_ existing: Installation?) throws -> InstallationUpdate,
        completion: @escaping @Sendable (Result<(installation: Installation, created: Bool), any Error>) -> Void)
    func installation(appID: String, installationID: String) throws -> Installation?
    /// The app's installations among `installationIDs`, in one read (fan-out reads a claimed chunk's at once);
    /// ids it does not have are left out.
    func installations(appID: String, installationIDs: [String]) throws -> [Installation]
    /// Clears one token of an installation and returns it; nil when there is no such installation.
    func removeToken(_ kind: TokenType, appID: String, installationID: String, now: Int64) throws -> Installation?
    /// A page of installations (at most `query.limit`), ordered by installation id.
    func installations(appID: String, query: InstallationQuery) throws -> [Installation]

    // MARK: Tags

    /// The user's tags, sorted.
    func tags(appID: String, userID: String) throws -> [String]
    /// Replaces the user's tags. - Throws: ``StoreError/Code/limitExceeded`` naming the limit.
    func replaceTags(appID: String, userID: String, tags: Set<String>, limits: TagLimits) throws -> [String]
    /// Adds to the user's tags. - Throws: ``StoreError/Code/limitExceeded`` naming the limit.
    func addTags(appID: String, userID: String, tags: Set<String>, limits: TagLimits) throws -> [String]
    /// Removes the given tags, or all when nil, and returns what is left.
    func removeTags(appID: String, userID: String, tags: Set<String>?) throws -> [String]

    // MARK: Users

    // Erasure: ``ErasureStore``.

    /// How many installations of every app have no known time zone, by app id.
    func installationsWithoutTimeZone() throws -> [String: Int]

    // MARK: Events

    /// Inserts events in one transaction, skipping event ids the app already has.
    /// - Returns: For each event, in order, true when inserted and false when a duplicate (also of an
    ///   earlier event of the same batch).
    func insertEvents(appID: String, events: [TidingsEvent], receivedAt: Int64) throws -> [Bool]
    /// The same insert without waiting for it: `completion` gets what the other form returns or throws, on
    /// this thread or later on the thread that writes the batch's group.
    func insertEvents(
        appID: String, events: [TidingsEvent], receivedAt: Int64,
        completion: @escaping @Sendable (Result<[Bool], any Error>) -> Void)
    /// Whether ``insertEvents(appID:events:receivedAt:completion:)`` returns before the batch is written (it
    /// joins a group that another thread writes), so that a caller that must not wait can use it; false
    /// when it is the waiting form.
    var insertsEventsWithoutWaiting: Bool { get }
    /// A page of the app's events, oldest first.
    func events(appID: String, query: EventQuery) throws -> EventPage
    /// The counts behind a funnel.
    ///
    /// - Parameter openingActions: the ids of the buttons that open the app, by message id (their `action`
    ///   events count as opens; see ``FunnelStage``).
    func funnel(appID: String, scope: FunnelScope, openingActions: [String: Set<String>]) throws -> EventFunnel

    // MARK: Messages

    /// Stores a message and its deliveries (pending and skipped) in one transaction.
    /// - Throws: ``StoreError/Code/conflict`` when the id is taken.
    func createMessage(_ message: MessageRecord, deliveries: [MessageDelivery]) throws
    func message(appID: String, messageID: String) throws -> MessageRecord?
    /// When the app's newest message of `kind` was created, unix milliseconds; nil when it has none.
    func lastMessageCreated(appID: String, kind: MessageKind) throws -> Int64?
    /// The deliveries of a message counted by state and reason.
    func messageCounts(messageID: String) throws -> MessageCounts
    /// The delivery counts of every message of `campaignID`, added up.
    func campaignCounts(appID: String, campaignID: String) throws -> MessageCounts
    /// Cancels a scheduled, resolving, queued or sending message: every delivery not yet handed to the provider,
    /// pending or claimed, becomes `cancelled`, in the same transaction, and ``changes`` announces
    /// ``StoreChange/messageCancelled(id:)`` (to every instance on PostgreSQL). A claimed row keeps its claim's
    /// worker and epoch, so a push already in flight records the provider's answer
    /// (``SendControlStore/completeDeliveries(_:worker:now:)``), while the worker's claim check refuses the
    /// rest. Returns the message, or nil when there is none; a finished message is returned unchanged.
    func cancelMessage(appID: String, messageID: String, now: Int64) throws -> MessageRecord?

    /// Returns every claimed delivery to pending, whoever holds it. Only for a process that knows no
    /// other sender is alive (``TidingsService`` holds the store's sender lock); others wait for leases.
    /// - Returns: how many deliveries were released.
    func releaseAllClaims(now: Int64) throws -> Int
    /// Records the result of a delivery `worker` holds; false (and nothing changed) when it no longer holds it,
    /// so a row is never moved out of `sent`.
    @discardableResult
    func completeDelivery(
        messageID: String, installationID: String, worker: String, result: DeliveryResult, now: Int64
    ) throws -> Bool
    /// Marks `done` every queued or sending message with nothing pending or claimed; returns their ids.
    func finishMessages(now: Int64) throws -> [String]
    /// Marks `done` those of `ids` that are queued or sending with nothing pending or claimed; returns them.
    /// A worker calls it for the messages of the outcomes it just recorded, so a message of one push is done
    /// when its push is, and the claims' look at every sending message stays short. Reads the pending rows of
    /// each message and the claimed rows of all, never a message's sent rows.
    func finishMessages(ids: [String], now: Int64) throws -> [String]
    /// Clears `token` of `kind` from the installation when it still holds it and the device has not presented
    /// it again since `invalidSince` (the provider's timestamp, unix milliseconds; nil clears it whenever it
    /// is still held); returns whether it was cleared.
    @discardableResult
    func deactivateToken(
        _ kind: TokenType, token: String, appID: String, installationID: String, invalidSince: Int64?, now: Int64
    ) throws -> Bool
    /// Notes that APNs refused `token` for the app's topic or environment (`BadDeviceToken`,
    /// `DeviceTokenNotForTopic`) when the installation still holds it; the token itself is kept.
    @discardableResult
    func markTokenMismatch(token: String, appID: String, installationID: String, now: Int64) throws -> Bool
    /// The token last marked as mismatched and when, unix milliseconds; nil when none is.
    func tokenMismatch(appID: String, installationID: String) throws -> (token: String, at: Int64)?
}

extension Store {
    /// The counts behind a funnel, knowing no button that opens the app.
    public func funnel(appID: String, scope: FunnelScope) throws -> EventFunnel {
        try funnel(appID: appID, scope: scope, openingActions: [:])
    }

    /// One read per installation; a backend that can read them together implements the requirement itself.
    public func installations(appID: String, installationIDs: [String]) throws -> [Installation] {
        try installationIDs.compactMap { try installation(appID: appID, installationID: $0) }
    }

    /// Creates or changes an installation with a fixed update (no ownership or identity check): for server keys,
    /// administration and tests.
    public func upsertInstallation(appID: String, installationID: String, update: InstallationUpdate, now: Int64)
        throws -> (installation: Installation, created: Bool)
    {
        try upsertInstallation(appID: appID, installationID: installationID, now: now) { _ in update }
    }

    /// The waiting form, answered before returning: for a backend that does not write in groups.
    public func insertEvents(
        appID: String, events: [TidingsEvent], receivedAt: Int64,
        completion: @escaping @Sendable (Result<[Bool], any Error>) -> Void
    ) {
        completion(Result { try insertEvents(appID: appID, events: events, receivedAt: receivedAt) })
    }

    public var insertsEventsWithoutWaiting: Bool { false }

    /// The waiting form, answered before returning: for a backend that does not write in groups.
    public func upsertInstallation(
        appID: String, installationID: String, now: Int64,
        prepare: @escaping @Sendable (_ existing: Installation?) throws -> InstallationUpdate,
        completion: @escaping @Sendable (Result<(installation: Installation, created: Bool), any Error>) -> Void
    ) {
        completion(
            Result { try upsertInstallation(appID: appID, installationID: installationID, now: now, prepare: prepare) })
    }
}
