/// What campaigns need of the store: messages accepted before their audience is known, resolved in the
/// background in chunks by one leased resolver at a time, listed by state, and broken down by variant and
/// language.
///
/// Resolution survives restarts and is shared by instances: the message row holds the plan, the cursor where
/// the last chunk stopped and which resolver holds it until when. A chunk's deliveries and the cursor that
/// follows them are written in one transaction, so a resolver that dies loses nothing and repeats nothing
/// (deliveries are unique per installation anyway).
public protocol CampaignStore: Sendable {
    /// Stores a message in state `scheduled` (or `resolving` when `message.resolveAt` has come) with no
    /// deliveries yet. With `resolver`, that resolver already holds it until `leaseUntil` (the API resolves
    /// the first chunk itself).
    /// - Throws: ``StoreError/Code/conflict`` when the id is taken.
    func createCampaign(_ message: MessageRecord, resolver: String?, leaseUntil: Int64?) throws
    /// Claims one message whose resolution is due at `now` and that no live resolver holds, oldest due first,
    /// for `resolver` until `leaseUntil`; it becomes `resolving`. Nil when there is none. Concurrent callers
    /// never get the same message (PostgreSQL: `FOR UPDATE SKIP LOCKED`).
    func claimResolution(resolver: String, now: Int64, leaseUntil: Int64) throws -> ResolutionClaim?
    /// Writes one chunk's deliveries (a repeated installation keeps its first row), moves the cursor to
    /// `cursor` and extends the lease, in one transaction; with `finished` the message becomes `sending` and
    /// is released. Changes nothing when `resolver` no longer holds it (cancelled, or its lease ended and
    /// another took it).
    ///
    /// With `handover`, the deliveries in state ``MessageDelivery/State/claimed`` are written claimed by
    /// `handover.worker` until `handover.leaseUntil` under ``ClaimHandover/epoch`` (the others as they are).
    /// - Returns: nil when `resolver` no longer holds the message (nothing written); else the installation ids
    ///   written claimed (a repeated installation keeps its first row, claimed or not).
    func appendDeliveries(
        messageID: String, resolver: String, deliveries: [MessageDelivery], cursor: String?, finished: Bool,
        leaseUntil: Int64, now: Int64, handover: ClaimHandover?
    ) throws -> Set<String>?
    /// Whether a message other than `messageID` waits for a resolver at `now`
    /// (``claimResolution(resolver:now:leaseUntil:)`` would return one): a resolver pacing one message to its
    /// worker stops waiting, so the other's resolution is not held up.
    func resolutionDue(now: Int64, excluding messageID: String) throws -> Bool
    /// Gives up `resolver`'s hold on the message, so the next claim may take it at once.
    func releaseResolution(messageID: String, resolver: String) throws
    /// A page of the app's messages, newest first.
    func messages(appID: String, query: MessageListQuery) throws -> [MessageRecord]
    /// The message's deliveries counted per variant or per language (nil values are left out).
    func messageCounts(messageID: String, by grouping: DeliveryGrouping) throws -> [String: MessageCounts]
    /// The message's deliveries counted per own due time (``MessageDelivery/dueAt``, a `local_time` message's
    /// zones); deliveries without one are left out.
    func messageCountsByDueTime(messageID: String) throws -> [Int64: MessageCounts]
    /// The message's funnel per variant or per language: its events joined to the delivery of the same
    /// installation.
    ///
    /// - Parameter openingActions: the ids of the buttons that open the app, by message id.
    func funnel(
        appID: String, messageID: String, by grouping: DeliveryGrouping, openingActions: [String: Set<String>]
    ) throws -> [String: EventFunnel]
    /// The message's conversions per variant (the control group under `control`; `""` for a message without
    /// variants): see ``ConversionCount`` and ``ConversionQuery`` for who counts.
    ///
    /// - Parameter openingActions: the ids of the buttons that open the app, by message id, for an SDK that
    ///   does not say whether an `action` opened it (when the window opens at the open).
    func conversions(
        appID: String, messageID: String, event: String, withinMilliseconds: Int64, from: ConversionStart,
        openingActions: [String: Set<String>]
    ) throws -> [String: ConversionCount]
}

extension CampaignStore {
    /// ``appendDeliveries(messageID:resolver:deliveries:cursor:finished:leaseUntil:now:handover:)`` with nothing
    /// handed over: false when `resolver` no longer holds the message.
    @discardableResult
    public func appendDeliveries(
        messageID: String, resolver: String, deliveries: [MessageDelivery], cursor: String?, finished: Bool,
        leaseUntil: Int64, now: Int64
    ) throws -> Bool {
        try appendDeliveries(
            messageID: messageID, resolver: resolver, deliveries: deliveries, cursor: cursor, finished: finished,
            leaseUntil: leaseUntil, now: now, handover: nil) != nil
    }

    /// The message's funnel per variant or per language, knowing no button that opens the app.
    public func funnel(appID: String, messageID: String, by grouping: DeliveryGrouping) throws
        -> [String: EventFunnel]
    {
        try funnel(appID: appID, messageID: messageID, by: grouping, openingActions: [:])
    }
}
