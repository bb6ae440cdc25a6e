/// What fan-out needs beyond the basic queue: claims shared fairly between messages with transactional
/// messages first, outcomes recorded a batch at a time, each app's send settings, and frequency caps.
///
/// ``Store`` refines it, so every backend implements it; the shared store suite runs it on each.
public protocol SendControlStore: Sendable {
    /// Claims pending deliveries due at `now` for `worker` until `leaseUntil`, first returning expired claims to
    /// pending: transactional messages first (each takes what it needs, oldest message first), then the other
    /// messages in equal shares of what is left, a share a message does not use going to the next ones.
    /// Concurrent callers never get the same row.
    func claimDeliveries(worker: String, claim: DeliveryClaim, now: Int64, leaseUntil: Int64) throws
        -> [MessageDelivery]
    /// Whether `deliveries` are still claimed by `worker` under the epoch each was claimed with
    /// (``MessageDelivery/claimEpoch``), and the age of the worker's instance's heartbeat, in one read. A worker
    /// calls it before sending what it holds in memory: a claim that was released (its instance taken for dead)
    /// or taken by another worker since, or whose message was cancelled (the row is `cancelled` then), must not
    /// be sent.
    /// - Parameter now: the caller's clock; a backend shared by several hosts (PostgreSQL) uses its own instead.
    func checkClaims(_ deliveries: [MessageDelivery], worker: String, now: Int64) throws -> ClaimCheck
    /// Records the results of deliveries `worker` holds in one transaction. For each, in order, whether it was
    /// recorded: false (and that row unchanged) when the worker no longer holds it, or no longer under the
    /// completion's ``DeliveryCompletion/claimEpoch``. A row cancelled under the claim (its message cancelled
    /// while the push was in flight) takes a `sent` or `failed` result, the provider's answer to a push handed
    /// over, and stays `cancelled` for any other. A result other than `sent` gives back the frequency-cap
    /// slot the delivery reserved.
    @discardableResult
    func completeDeliveries(_ completions: [DeliveryCompletion], worker: String, now: Int64) throws -> [Bool]
    /// The app's send settings; all defaults for an app that never set any.
    /// - Throws: ``StoreError/Code/notFound`` for an unknown app.
    func sendSettings(appID: String) throws -> AppSendSettings
    /// Replaces the app's send settings. - Throws: ``StoreError/Code/notFound`` for an unknown app.
    func updateSendSettings(appID: String, _ settings: AppSendSettings) throws
    /// Atomically takes one slot of `cap` for each of `installationIDs` (a push of `messageID` at `now`) and
    /// returns the installations that got one: an installation with `cap.count` other messages' slots in the
    /// window `(now - window, now]` gets none. A slot this message already holds for an installation counts as
    /// granted. Atomic across processes sharing the store (PostgreSQL: one advisory lock per installation).
    func reserveFrequencySlots(
        appID: String, messageID: String, installationIDs: [String], cap: FrequencyCap, now: Int64
    ) throws -> Set<String>
    /// How many frequency-cap slots each of `installationIDs` holds that were reserved after `since`: what
    /// ``reserveFrequencySlots(appID:messageID:installationIDs:cap:now:)`` would count as taken, read without
    /// reserving or removing anything (a dry run). Installations holding none are left out.
    func frequencySlotCounts(appID: String, installationIDs: [String], since: Int64) throws -> [String: Int]
}

extension SendControlStore {
    /// Claims up to `limit` due deliveries for `worker` until `leaseUntil` as one ``DeliveryClaim`` with nothing
    /// excluded: the shares of ``claimDeliveries(worker:claim:now:leaseUntil:)``, for callers that want a batch.
    public func claimDeliveries(worker: String, limit: Int, now: Int64, leaseUntil: Int64) throws
        -> [MessageDelivery]
    {
        try claimDeliveries(worker: worker, claim: DeliveryClaim(limit: limit), now: now, leaseUntil: leaseUntil)
    }
}
