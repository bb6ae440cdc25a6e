import Foundation
import TidingsModel
import TidingsStore

/// Resolves the audiences of accepted messages in the background: claims one message whose resolution is due,
/// writes its deliveries a bounded chunk at a time (each chunk with the cursor that follows it, in one
/// transaction) and streams them into the delivery queue, where fan-out workers send them while the rest is
/// still being resolved.
///
/// Memory is bounded by one chunk. A resolver that dies leaves its lease to expire; the next one continues
/// from the cursor, so nothing is resolved twice or lost. On PostgreSQL each message has one resolver across
/// instances (``CampaignStore/claimResolution(resolver:now:leaseUntil:)``).
public final class CampaignResolver: Sendable {
    public struct Configuration: Sendable, Equatable {
        /// Installations read per chunk (and ids, for a list target).
        public var chunkSize = 1000
        /// How long a claim is held without progress before another resolver may take it.
        public var lease: Duration = .seconds(60)
        /// How long an idle resolver waits before looking again.
        public var pollInterval: Duration = .milliseconds(500)

        public init() {}
    }

    public let id: String
    let store: any Store
    let clock: any TidingsClock
    let logger: Logger
    public let configuration: Configuration
    /// The process's fan-out worker, to which chunks due now go claimed (``DeliveryHandoff``); nil writes every
    /// chunk pending.
    let handoff: DeliveryHandoff?
    /// The idle sleep of ``run()``, and whether ``wake()`` came while none was under way.
    private let idle = LockedBox(IdleState())

    private struct IdleState {
        var sleep: Task<Void, any Error>?
        var woken = false
    }

    public init(
        store: any Store, clock: any TidingsClock = SystemClock(), logger: Logger = .disabled(),
        configuration: Configuration = Configuration(), id: String? = nil, handoff: DeliveryHandoff? = nil
    ) {
        self.id = id ?? "resolver-" + UUID().lowercasedString
        self.store = store
        self.clock = clock
        self.logger = logger
        self.configuration = configuration
        self.handoff = handoff
    }

    /// Resolves until no resolution is due; returns how many chunks it wrote.
    @discardableResult
    public func drain() async throws -> Int {
        var chunks = 0
        while !Task.isCancelled, let written = try await runOnce() { chunks += written }
        return chunks
    }

    /// Resolves until the task is cancelled, sleeping ``Configuration/pollInterval`` when idle.
    public func run() async {
        while !Task.isCancelled {
            var worked = false
            do {
                worked = try await runOnce() != nil
            } catch {
                logger.error("audience resolution failed: \(error)", metadata: ["resolver": id])
            }
            if !worked {
                do { try await sleepUnlessWoken() } catch { return }
            }
        }
    }

    /// Ends ``run()``'s idle sleep now, or its next one before it starts: a message due now was just accepted,
    /// and waiting for the next poll would hold its first push back by up to ``Configuration/pollInterval``.
    public func wake() {
        idle.withLock { state in
            state.woken = true
            return state.sleep
        }?.cancel()
    }

    /// Sleeps ``Configuration/pollInterval``, less when woken; throws only when the calling task is cancelled.
    private func sleepUnlessWoken() async throws {
        let clock = clock
        let interval = configuration.pollInterval
        let sleep = Task { try await clock.sleep(for: interval) }
        let woken = idle.withLock { state in
            defer { state.woken = false }
            state.sleep = sleep
            return state.woken
        }
        if woken { sleep.cancel() }
        defer { idle.withLock { $0.sleep = nil } }
        await withTaskCancellationHandler {
            _ = await sleep.result
        } onCancel: {
            sleep.cancel()
        }
        try Task.checkCancellation()
    }

    /// Claims one due message and resolves it to the end (chunk by chunk, each committed on its own).
    /// - Returns: How many chunks were written; nil when nothing was due.
    public func runOnce() async throws -> Int? {
        let now = clock.now.millisecondsSince1970
        guard
            let claim = try store.claimResolution(
                resolver: id, now: now, leaseUntil: now + Int64(configuration.lease.seconds * 1000))
        else { return nil }
        handoff?.messageClaimed()
        var cursor = claim.cursor
        var chunks = 0
        while !Task.isCancelled {
            let handover = try await handover(of: claim.message)
            guard let step = try resolveChunk(claim.message, cursor: cursor, resolver: id, handover: handover)
            else { break }
            chunks += 1
            cursor = step.cursor
            if step.finished { break }
            // Between chunks, let the senders (and the API) have the threads.
            await Task.yield()
        }
        if Task.isCancelled { try store.releaseResolution(messageID: claim.message.id, resolver: id) }
        return chunks
    }

    /// Whether the next chunk of `message` goes to the process's worker (``DeliveryHandoff``), and under which
    /// claim: not for a paced message, whose queue the worker fills at its rate.
    private func handover(of message: MessageRecord) async throws -> ClaimHandover? {
        guard let handoff, message.ratePerSecond == nil else { return nil }
        let store = store
        let clock = clock
        let reserved = try await handoff.reserve {
            try !store.resolutionDue(now: clock.now.millisecondsSince1970, excluding: message.id)
        }
        guard reserved else { return nil }
        return ClaimHandover(
            worker: handoff.worker, leaseUntil: clock.now.millisecondsSince1970 + Int64(handoff.lease.seconds * 1000))
    }

    /// Writes one chunk of `message`'s deliveries after `cursor` for `resolver`, which holds it; with
    /// `handover` (reserved from ``handoff``), the deliveries due now go to the worker claimed.
    /// - Returns: The cursor after the chunk and whether the audience is complete; nil when the message is no
    ///   longer held (cancelled, or taken by another resolver after a lease expired).
    public func resolveChunk(
        _ message: MessageRecord, cursor: String?, resolver: String, handover: ClaimHandover? = nil
    ) throws -> (cursor: String?, finished: Bool)? {
        let now = clock.now
        // A reservation not used for a chunk is given back, so the worker still counts as wanting one.
        var leftForWorker = false
        defer { if handover != nil && !leftForWorker { handoff?.cancelReservation() } }
        guard let plan = CampaignPlan.decode(message.plan) else {
            logger.error("a message's plan cannot be read; it is left unresolved", metadata: ["message_id": message.id])
            _ = try store.appendDeliveries(
                messageID: message.id, resolver: resolver, deliveries: [], cursor: cursor, finished: true,
                leaseUntil: 0, now: now.millisecondsSince1970)
            return nil
        }
        var (chunk, deliveries) = try decide(message, plan: plan, after: cursor, now: now)
        var handed: [Int] = []
        if handover != nil {
            for index in deliveries.indices
            where deliveries[index].state == .pending && deliveries[index].notBefore <= now.millisecondsSince1970 {
                deliveries[index].state = .claimed
                deliveries[index].claimEpoch = ClaimHandover.epoch
                handed.append(index)
            }
        }
        let written = try store.appendDeliveries(
            messageID: message.id, resolver: resolver, deliveries: deliveries, cursor: chunk.cursor,
            finished: chunk.finished,
            leaseUntil: now.millisecondsSince1970 + Int64(configuration.lease.seconds * 1000),
            now: now.millisecondsSince1970, handover: handed.isEmpty ? nil : handover)
        if let handover {
            leftForWorker = try handOver(
                handed.map { deliveries[$0] }, claimed: written ?? [], chunk: chunk, handover: handover,
                now: now.millisecondsSince1970)
        }
        guard written != nil else { return nil }
        if chunk.finished {
            logger.info("audience resolved", metadata: ["message_id": message.id, "resolver": resolver])
        }
        return (chunk.cursor, chunk.finished)
    }

    /// Leaves the deliveries written claimed for the worker, with their installations; if the worker stopped
    /// meanwhile, hands the rows back to the queue.
    /// - Returns: whether there were any (the reservation is used); false leaves it to be given back.
    private func handOver(
        _ candidates: [MessageDelivery], claimed: Set<String>, chunk: AudienceChunk, handover: ClaimHandover, now: Int64
    ) throws -> Bool {
        guard let handoff else { return false }
        // A repeated installation has one row: its first delivery.
        var seen = Set<String>()
        let deliveries = candidates.filter {
            claimed.contains($0.installationID) && seen.insert($0.installationID).inserted
        }
        guard !deliveries.isEmpty else { return false }
        let installations = chunk.members.map(\.installation).filter { seen.contains($0.installationID) }
        let batch = DeliveryHandoff.Batch(
            deliveries: deliveries, installations: installations, leaseUntil: handover.leaseUntil)
        guard !handoff.put(batch) else { return true }
        try store.completeDeliveries(
            deliveries.map {
                DeliveryCompletion($0, result: .deferred(reason: DeliveryResult.interruptedReason, notBefore: now))
            }, worker: handover.worker, now: now)
        return true
    }

    /// The deliveries of a message whose whole audience fits one chunk (a journey step's person), decided
    /// without writing anything, for the caller to store with the message in its own transaction.
    /// - Returns: nil when the plan cannot be read or the audience needs more than one chunk; such a message
    ///   is resolved by ``resolveChunk(_:cursor:resolver:)``.
    public func deliveriesOfSmallAudience(_ message: MessageRecord) throws -> [MessageDelivery]? {
        guard let plan = CampaignPlan.decode(message.plan) else { return nil }
        let (chunk, deliveries) = try decide(message, plan: plan, after: nil, now: clock.now)
        return chunk.finished ? deliveries : nil
    }

    /// Reads the audience chunk after `cursor` and decides each member's delivery (policy, caps, consent).
    private func decide(_ message: MessageRecord, plan: CampaignPlan, after cursor: String?, now: Date) throws -> (
        AudienceChunk, [MessageDelivery]
    ) {
        // Relative times in an audience (`last_seen > 30d ago`) count back from when resolution was due.
        let chunk = try AudienceChunk.read(
            plan: plan, appID: message.appID, cursor: cursor, limit: configuration.chunkSize,
            now: message.resolveAt ?? message.createdAt, store: store)
        var builder = DeliveryBuilder(message: message, plan: plan, now: now)
        var deliveries: [MessageDelivery] = []
        deliveries.reserveCapacity(chunk.members.count + chunk.unknownInstallationIDs.count)
        for member in chunk.members {
            if let delivery = builder.delivery(for: member.installation, targetUserID: member.targetUserID) {
                deliveries.append(delivery)
            }
        }
        deliveries += chunk.unknownInstallationIDs.map(builder.unknown)
        return (chunk, deliveries)
    }
}
