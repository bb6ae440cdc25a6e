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

    public init(
        store: any Store, clock: any TidingsClock = SystemClock(), logger: Logger = .disabled(),
        configuration: Configuration = Configuration(), id: String? = nil
    ) {
        self.id = id ?? "resolver-" + UUID().lowercasedString
        self.store = store
        self.clock = clock
        self.logger = logger
        self.configuration = configuration
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
                do { try await clock.sleep(for: configuration.pollInterval) } catch { return }
            }
        }
    }

    /// Claims one due message and resolves it to the end (chunk by chunk, each committed on its own).
    /// - Returns: How many chunks were written; nil when nothing was due.
    public func runOnce() async throws -> Int? {
        let now = clock.now.millisecondsSince1970
        guard
            let claim = try store.claimResolution(
                resolver: id, now: now, leaseUntil: now + Int64(configuration.lease.seconds * 1000))
        else { return nil }
        var cursor = claim.cursor
        var chunks = 0
        while !Task.isCancelled {
            guard let step = try resolveChunk(claim.message, cursor: cursor, resolver: id) else { break }
            chunks += 1
            cursor = step.cursor
            if step.finished { break }
            // Between chunks, let the senders (and the API) have the threads.
            await Task.yield()
        }
        if Task.isCancelled { try store.releaseResolution(messageID: claim.message.id, resolver: id) }
        return chunks
    }

    /// Writes one chunk of `message`'s deliveries after `cursor` for `resolver`, which holds it.
    /// - Returns: The cursor after the chunk and whether the audience is complete; nil when the message is no
    ///   longer held (cancelled, or taken by another resolver after a lease expired).
    public func resolveChunk(_ message: MessageRecord, cursor: String?, resolver: String) throws
        -> (cursor: String?, finished: Bool)?
    {
        let now = clock.now
        guard let plan = CampaignPlan.decode(message.plan) else {
            logger.error("a message's plan cannot be read; it is left unresolved", metadata: ["message_id": message.id])
            _ = try store.appendDeliveries(
                messageID: message.id, resolver: resolver, deliveries: [], cursor: cursor, finished: true,
                leaseUntil: 0, now: now.millisecondsSince1970)
            return nil
        }
        let (chunk, deliveries) = try decide(message, plan: plan, after: cursor, now: now)
        let held = try store.appendDeliveries(
            messageID: message.id, resolver: resolver, deliveries: deliveries, cursor: chunk.cursor,
            finished: chunk.finished, leaseUntil: now.millisecondsSince1970 + Int64(configuration.lease.seconds * 1000),
            now: now.millisecondsSince1970)
        guard held else { return nil }
        if chunk.finished {
            logger.info("audience resolved", metadata: ["message_id": message.id, "resolver": resolver])
        }
        return (chunk.cursor, chunk.finished)
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
