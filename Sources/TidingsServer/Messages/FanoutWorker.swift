import Foundation
import TidingsCampaigns
import TidingsMetrics
import TidingsModel
import TidingsPush
import TidingsStore

/// Sends the pending deliveries of every message: claims chunks of rows with a lease, sends them with a wide
/// window of pushes in flight through a ``PushProvider``, and records the outcomes a batch at a time.
///
/// Several workers (in one process or many) share the queue: a claim is exclusive until its lease
/// expires. A worker that dies leaves its claims to expire; the next claim returns them to pending. A
/// restarted tidingsd that finds itself the only sender (``TidingsService`` takes the store's sender lock)
/// returns them at once.
///
/// Claims take transactional messages first and share the rest equally between the messages sending; while
/// a campaign is going out the worker looks for new transactional deliveries every
/// ``Configuration/priorityPollInterval`` and sends them ahead of the campaign's queue. Each message's
/// `rate_per_second` and its app's ceiling pace the pushes (``SendThrottle``); the app's frequency cap is
/// checked for marketing messages when their deliveries are claimed to be sent, atomically in the store.
///
/// At most once per installation per message: a row recorded as `sent` is never claimed again, and an
/// outcome is recorded only by the worker that still holds the claim, under the claim's epoch
/// (``MessageDelivery/claimEpoch``). A claim can be taken from a live worker: its instance paused (GC,
/// SIGSTOP, a VM migration) or cut off from the database past the cluster's instance timeout is taken for dead,
/// and its claims released. So nothing claimed goes out unless a check of its claim
/// (``SendControlStore/checkClaims(_:worker:now:)``) found it held within ``Configuration/claimCheckInterval``
/// on the monotonic clock, and, in a cluster, while the instance's heartbeat (by the store's clock) is well
/// younger than ``Configuration/instanceTimeout``; what was taken is dropped unsent. Each newly claimed
/// chunk is checked before its first push. The pushes already handed to the provider when the claim was taken
/// are the in-flight window: they can go out twice. The other window is between the
/// provider's acceptance and the row update: a crash there leaves the row claimed, and after the lease it
/// is sent again. Outcomes are written in one transaction per batch, at the latest
/// ``Configuration/completionDelay`` after the first of the batch returned (or when ``Configuration/completionBatchSize``
/// are waiting), so the window is that short; the lease (default 5 minutes) is far longer than a send, so a
/// slow but live worker is never overtaken. The device de-duplicates by `tidings.id` for delivery events.
///
/// One worker of a process (``FanoutService``'s first) also takes chunks from the process's resolver without
/// claiming them (``handoff``): the resolver writes a chunk's due deliveries claimed by this worker in the
/// chunk's own transaction and passes them over with the installations it just read. They are this worker's
/// claims like any other, under the same fence; a chunk left there when the worker stops is handed back.
public final class FanoutWorker: Sendable {
    /// Chunk size, concurrency, lease and retry policy.
    public struct Configuration: Sendable, Equatable {
        /// Rows claimed at once.
        public var chunkSize = 1_000
        /// Pushes in flight at once: wide enough to keep every HTTP/2 stream of the provider's connections busy
        /// (APNs allows 1,000 per connection); the client queues what its streams cannot take.
        public var maximumInFlight = 1_000
        /// How long a claim is held; expired claims return to pending.
        public var lease: Duration = .seconds(300)
        /// How long an idle worker waits before looking again.
        public var pollInterval: Duration = .milliseconds(500)
        /// Outcomes written together in one transaction, at most.
        public var completionBatchSize = 500
        /// How long an outcome may wait for its batch before it is written anyway.
        public var completionDelay: Duration = .milliseconds(25)
        /// How often a worker busy with campaigns looks for transactional deliveries to send first.
        public var priorityPollInterval: Duration = .milliseconds(200)
        /// After a claim that found fewer deliveries than it asked for, how long before the next (``wake()``
        /// ends it): a stream of one-push messages (journey steps, transactional sends) is then claimed some at
        /// a time rather than in one claim per push, each claim's cost spread over what arrived meanwhile.
        public var shortClaimInterval: Duration = .milliseconds(10)
        /// Sends per delivery before a retryable failure becomes final.
        public var maximumAttempts = 5
        /// The ceiling of the first retry's wait; it doubles per attempt, up to ``maximumBackoff``, and the
        /// wait is drawn uniformly below it (full jitter, ``RetryBackoff``), never under `Retry-After`.
        public var initialBackoff: Duration = .seconds(2)
        public var maximumBackoff: Duration = .seconds(300)
        /// Consent, night and expiry rules, applied to each delivery as it is claimed.
        public var policy = DeliveryPolicy()
        /// How long a check that the claims held in memory are still this worker's is trusted (measured on the
        /// monotonic clock, which runs on through a pause): nothing goes out on an older check.
        public var claimCheckInterval: Duration = .seconds(1)
        /// The cluster's instance timeout (``ClusterMembership/Configuration/instanceTimeout``) when the worker's
        /// instance writes heartbeats: the worker sends only while its instance's heartbeat, by the store's
        /// clock, is younger than four fifths of it, so its claims cannot be released while it sends. Nil
        /// outside a cluster.
        public var instanceTimeout: Duration?
        /// How long the process's resolver waits for the worker to want its next chunk before writing it pending
        /// (``DeliveryHandoff``); a cluster's workers (``instanceTimeout`` set) get it only while no other
        /// instance is live (``FanoutWorker/otherInstancesLive(_:)``), so every instance's workers share a
        /// message.
        public var handoffPatience: Duration = .milliseconds(200)
        /// The jitter's uniform draw in `0..<1`; tests pin it.
        public var random: @Sendable () -> Double = { Double.random(in: 0..<1) }

        public init() {}

        /// Equal settings; the random source is a function and is not compared.
        public static func == (lhs: Configuration, rhs: Configuration) -> Bool {
            lhs.chunkSize == rhs.chunkSize && lhs.maximumInFlight == rhs.maximumInFlight && lhs.lease == rhs.lease
                && lhs.pollInterval == rhs.pollInterval && lhs.maximumAttempts == rhs.maximumAttempts
                && lhs.initialBackoff == rhs.initialBackoff && lhs.maximumBackoff == rhs.maximumBackoff
                && lhs.policy == rhs.policy && lhs.completionBatchSize == rhs.completionBatchSize
                && lhs.completionDelay == rhs.completionDelay && lhs.priorityPollInterval == rhs.priorityPollInterval
                && lhs.claimCheckInterval == rhs.claimCheckInterval && lhs.instanceTimeout == rhs.instanceTimeout
                && lhs.shortClaimInterval == rhs.shortClaimInterval && lhs.handoffPatience == rhs.handoffPatience
        }
    }

    /// Identifies this worker's claims.
    public let id: String
    let store: any Store
    let provider: any PushProvider
    let clock: any TidingsClock
    let logger: Logger
    let configuration: Configuration
    let counters: FanoutCounters
    let throttle: SendThrottle
    /// Chunks the process's resolver writes claimed for this worker (nil: it claims everything itself).
    public let handoff: DeliveryHandoff?
    private let stopState = LockedBox(StopState())
    /// What the store's change feed told the sending loop since it last looked.
    private let heard = LockedBox(HeardChanges())

    /// Messages cancelled (by any instance: PostgreSQL's `NOTIFY` carries it), and whether changes may have
    /// been missed (the feed's connection came back), so every claim held must be checked again before the next
    /// push.
    private struct HeardChanges {
        var cancelledMessages: Set<String> = []
        var missedSome = false
        /// ``wake()`` was called: deliveries were just queued, so claim now.
        var newWork = false
    }

    /// Whether a stop was asked for, and the idle wait it must cut short.
    private struct StopState {
        var requested = false
        var idleWait: Task<Void, any Error>?
    }

    /// - Parameters:
    ///   - throttle: shared by the workers of one process, so rates hold over all of them.
    ///   - takesHandoff: whether the process's resolver may hand this worker chunks claimed (``handoff``); one
    ///     worker of a process at most.
    public init(
        store: any Store, provider: any PushProvider, clock: any TidingsClock = SystemClock(),
        logger: Logger = .disabled(), configuration: Configuration = Configuration(),
        metrics: MetricsRegistry? = nil, id: String? = nil, throttle: SendThrottle = SendThrottle(),
        takesHandoff: Bool = false
    ) {
        let id = id ?? "worker-" + UUID().lowercasedString
        self.id = id
        handoff =
            takesHandoff
            ? DeliveryHandoff(
                worker: id, patience: configuration.instanceTimeout == nil ? configuration.handoffPatience : .zero,
                lease: configuration.lease) : nil
        self.store = store
        self.provider = provider
        self.clock = clock
        self.logger = logger
        self.configuration = configuration
        self.throttle = throttle
        counters = FanoutCounters(registry: metrics)
    }

    /// A cluster's heartbeat saw `count` other live instances: the resolver waits for this worker to want a
    /// chunk (``Configuration/handoffPatience``) only while there are none, since otherwise the chunks written
    /// pending are what the other instances' workers send. Outside a cluster it changes nothing.
    public func otherInstancesLive(_ count: Int) {
        guard configuration.instanceTimeout != nil else { return }
        handoff?.setPatience(count == 0 ? configuration.handoffPatience : .zero)
    }

    /// Sends until nothing is due, then returns how many deliveries it processed.
    @discardableResult
    public func drain() async throws -> Int {
        var total = 0
        while !isStopping {
            let processed = try await runOnce()
            if processed == 0 { break }
            total += processed
        }
        return total
    }

    /// Sends until ``requestStop()`` or the task is cancelled: claims again whenever its queue runs low, so
    /// pushes keep flowing between chunks, and sleeps ``Configuration/pollInterval`` when nothing is due.
    public func run() async {
        handoff?.open { [weak self] in self?.wake() }
        defer { handBack(handoff?.close()) }
        while !isStopping {
            var processed = 0
            do {
                processed = try await pump(continuous: true)
            } catch {
                logger.error("fan-out failed: \(error)", metadata: ["worker": id])
            }
            if processed == 0 {
                do { try await waitIdle() } catch { return }
            }
        }
    }

    /// Sleeps ``Configuration/pollInterval``, or less when a stop is asked for or new work announced
    /// (``wake()``) meanwhile.
    private func waitIdle() async throws {
        let clock = clock
        let interval = configuration.pollInterval
        let wait = Task { try await clock.sleep(for: interval) }
        let stopping = stopState.withLock { state in
            state.idleWait = wait
            return state.requested
        }
        if stopping || heard.withLock({ $0.newWork }) { wait.cancel() }
        do {
            try await withTaskCancellationHandler {
                try await wait.value
            } onCancel: {
                wait.cancel()
            }
        } catch  where !isStopping {
            // Woken early: look again at once.
        }
    }

    /// Ends an idle wait now, so the worker looks for due deliveries at once: called when work was just
    /// queued (a journey's step message resolved), so it does not wait for its next poll.
    public func wake() {
        heard.withLock { $0.newWork = true }
        stopState.withLock { $0.idleWait }?.cancel()
    }

    /// Asks the worker to wind down: it claims nothing more and starts no new push; the pushes in flight get
    /// their answers, which are recorded, and the deliveries it claimed but had not sent go back to the queue
    /// at once, without using an attempt. ``run()`` and ``drain()`` then return.
    ///
    /// Cancelling the task instead cuts the pushes in flight off as well: they come back
    /// ``PushOutcome/Disposition/interrupted`` and are handed back the same way.
    public func requestStop() {
        let idleWait = stopState.withLock { state in
            state.requested = true
            return state.idleWait
        }
        idleWait?.cancel()
    }

    private var isStopping: Bool { Task.isCancelled || stopState.withLock { $0.requested } }

    /// Claims one chunk, sends it and records the outcomes, then finishes messages with nothing left.
    /// - Returns: How many deliveries were claimed.
    @discardableResult
    public func runOnce() async throws -> Int {
        try await pump(continuous: false)
    }

    /// Claims, sends and records: one chunk, or (`continuous`) chunk after chunk until nothing is due.
    /// - Returns: How many deliveries were claimed.
    private func pump(continuous: Bool) async throws -> Int {
        let heard = heard
        let observation = store.changes.observe { change in
            switch change {
            case .messageCancelled(let id): heard.withLock { _ = $0.cancelledMessages.insert(id) }
            case .everything: heard.withLock { $0.missedSome = true }
            case .key, .app, .identityKeys, .pushCredentials, .erasures: break
            }
        }
        defer { observation.cancel() }
        var queue = SendQueue()
        var completions = CompletionBuffer()
        var claimedTotal = 0
        var exhausted = false
        var lastEmptyClaim = ContinuousClock.now
        // When the last claim came back with fewer than it asked for (and found some), if it did.
        var lastShortClaim: ContinuousClock.Instant?
        var lastPriorityClaim = ContinuousClock.now
        var lastFinish = ContinuousClock.now
        // Until when the claims waiting in the queue were found held, and when to check again after a check
        // that failed or found the instance's heartbeat too old to send on.
        var checkedUntil = ContinuousClock.now
        var nextCheck = ContinuousClock.now
        func claim(_ request: DeliveryClaim) throws {
            let now = clock.now.millisecondsSince1970
            let leaseUntil = now + Int64(configuration.lease.seconds * 1000)
            let claimed = try store.claimDeliveries(worker: id, claim: request, now: now, leaseUntil: leaseUntil)
            var found = claimed.count
            claimedTotal += claimed.count
            if !claimed.isEmpty {
                // Rows claimed just now are this worker's under the epochs the claim returned; what could take
                // them away is this instance being taken for dead, which the last check rules out until
                // `checkedUntil` (its heartbeat's age). So they need no check of their own until then.
                try intake(
                    claimed, leaseUntil: leaseUntil, checked: ContinuousClock.now < checkedUntil, into: &queue,
                    completions: &completions)
            }
            // What the resolver wrote claimed for this worker; it is asked for more when the store had less than
            // this claim asked for, so a message other than the one resolving keeps its share.
            if !request.onlyTransactional, let batch = handoff?.take(wantingMore: claimed.count < request.limit),
                let first = batch.deliveries.first,
                // A cancel heard before this take dropped nothing of the batch: its rows are `cancelled` by now.
                try store.message(appID: first.appID, messageID: first.messageID)?.state != .cancelled
            {
                found += batch.deliveries.count
                claimedTotal += batch.deliveries.count
                counters.handedOver?.increment(by: batch.deliveries.count)
                try intake(
                    batch.deliveries, installations: batch.installations, leaseUntil: batch.leaseUntil,
                    checked: ContinuousClock.now < checkedUntil, into: &queue, completions: &completions)
            }
            if !request.onlyTransactional {
                exhausted = found == 0
                if exhausted { lastEmptyClaim = .now }
                lastShortClaim = !exhausted && found < request.limit ? .now : nil
            }
        }
        // This first claim answers any wake that came before it.
        heard.withLock { $0.newWork = false }
        if !isStopping { try claim(DeliveryClaim(limit: configuration.chunkSize)) }
        let window = max(1, configuration.maximumInFlight)
        try await withThrowingTaskGroup(of: Event.self) { group in
            let provider = self.provider
            var inFlight = 0
            var wakeScheduled = false
            var flushScheduled = false
            // One batch of outcomes is written at a time, beside the sending: the loop goes on starting pushes and
            // reading answers while the store writes (and, on PostgreSQL, waits for the commit to reach disk).
            var writing = false
            func startWriting() {
                guard !writing, !completions.isEmpty else { return }
                writing = true
                let batch = completions.take()
                group.addTask { .written(batch, try await self.recordOutcomes(batch.map(\.completion))) }
            }
            while true {
                // A cancel is acted on before any further push starts: the message's queued pushes go unsent
                // (its rows are recorded cancelled already); the claims check catches one the feed missed.
                let news = heard.withLock { heard in
                    defer { heard = HeardChanges() }
                    return heard
                }
                let dropped = queue.dropMessages(news.cancelledMessages)
                if dropped > 0 {
                    logger.info(
                        "message cancelled; its queued pushes dropped unsent",
                        metadata: ["worker": id, "count": "\(dropped)"])
                }
                if news.missedSome {
                    checkedUntil = .now
                    nextCheck = .now
                }
                if news.newWork {
                    exhausted = false
                    lastShortClaim = nil
                }
                let stopping = isStopping
                // Until the next claim may be made after a short one.
                let shortClaimWait = lastShortClaim.map { configuration.shortClaimInterval - (.now - $0) }
                if stopping && inFlight == 0 && !writing {
                    // Every answer is in: record them, and hand back what was claimed but not sent, so another
                    // worker sends it now rather than after the lease.
                    let now = clock.now.millisecondsSince1970
                    for delivery in queue.removeAll() + (handoff?.close()?.deliveries ?? []) {
                        completions.append(
                            delivery, .deferred(reason: DeliveryResult.interruptedReason, notBefore: now))
                    }
                    try await flush(&completions, queue: &queue)
                    break
                }
                // While paced messages keep the worker busy, new messages are looked for every poll interval.
                let claimDue =
                    exhausted
                    ? ContinuousClock.now - lastEmptyClaim >= configuration.pollInterval
                    : (shortClaimWait ?? .zero) <= .zero
                if continuous && !stopping && queue.count < configuration.chunkSize / 2 && claimDue {
                    // With pushes in flight a store error must not end the pump: their outcomes would be lost and
                    // the pushes sent again when the lease ends. Claim again after a poll interval instead.
                    do {
                        try claim(
                            DeliveryClaim(
                                limit: configuration.chunkSize - queue.count,
                                excludedMessageIDs: queue.saturatedMessages))
                        // Finishing looks at every active message's rows: once a second is soon enough mid-campaign.
                        if ContinuousClock.now - lastFinish >= .seconds(1) {
                            lastFinish = .now
                            try finishMessages()
                        }
                    } catch {
                        exhausted = true
                        lastEmptyClaim = .now
                        logger.warning("claiming more deliveries failed: \(error)", metadata: ["worker": id])
                    }
                }
                if continuous && !stopping && !queue.isEmpty
                    && ContinuousClock.now - lastPriorityClaim >= configuration.priorityPollInterval
                {
                    lastPriorityClaim = .now
                    do {
                        try claim(DeliveryClaim(limit: configuration.chunkSize, onlyTransactional: true))
                    } catch {
                        logger.warning("claiming transactional deliveries failed: \(error)", metadata: ["worker": id])
                    }
                }
                var wait: Duration?
                if continuous && !stopping && !claimDue && !exhausted, let shortClaimWait {
                    wait = max(.milliseconds(1), shortClaimWait)
                }
                if !stopping && !queue.isEmpty && (queue.unchecked > 0 || ContinuousClock.now >= checkedUntil)
                    && ContinuousClock.now >= nextCheck
                {
                    do {
                        // Only the newly claimed when the last check still holds for the rest.
                        if queue.unchecked > 0 && ContinuousClock.now < checkedUntil {
                            checkedUntil = min(checkedUntil, try checkClaims(&queue, uncheckedOnly: true))
                        } else {
                            checkedUntil = try checkClaims(&queue, uncheckedOnly: false)
                        }
                    } catch {
                        checkedUntil = .now
                        logger.warning("checking claims failed: \(error)", metadata: ["worker": id])
                    }
                    if ContinuousClock.now >= checkedUntil { nextCheck = .now + configuration.pollInterval }
                }
                if !queue.isEmpty && (queue.unchecked > 0 || ContinuousClock.now >= checkedUntil) {
                    wait = min(wait ?? .seconds(3600), max(.milliseconds(1), nextCheck - .now))
                }
                let now = clock.now.millisecondsSince1970
                // While a write is out and another batch already waits (a slow or unreachable store), no more
                // pushes start: answers the store has not taken are what a lost claim would send twice.
                let outcomesBehind = writing && completions.count >= configuration.completionBatchSize
                while inFlight < window && !stopping && !outcomesBehind && queue.unchecked == 0
                    && ContinuousClock.now < checkedUntil
                {
                    switch queue.next(throttle: throttle, now: now) {
                    case .empty:
                        break
                    case .wait(let duration):
                        wait = min(wait ?? duration, duration)
                    case .send(let delivery, let message):
                        let push = Self.push(delivery, message, payload: queue.takeRenderedPayload(for: delivery))
                        inFlight += 1
                        group.addTask { .done(delivery, await provider.send(push)) }
                        continue
                    }
                    break
                }
                if let wait, !wakeScheduled {
                    wakeScheduled = true
                    group.addTask {
                        try? await Task.sleep(for: wait)
                        return .wake
                    }
                }
                if completions.count >= configuration.completionBatchSize
                    || (inFlight == 0 && !completions.isEmpty)
                {
                    startWriting()
                } else if !completions.isEmpty && !flushScheduled {
                    flushScheduled = true
                    let delay = configuration.completionDelay
                    group.addTask {
                        try? await Task.sleep(for: delay)
                        return .flush
                    }
                }
                if inFlight == 0 && !writing && queue.isEmpty && completions.isEmpty && (!continuous || exhausted) {
                    break
                }
                guard let event = try await group.next() else { continue }
                switch event {
                case .done(let delivery, let outcome):
                    inFlight -= 1
                    completions.append(
                        delivery,
                        try providerResult(
                            delivery, outcome, message: queue.message(delivery), now: clock.now.millisecondsSince1970))
                    queue.answered(delivery)
                case .wake:
                    wakeScheduled = false
                case .flush:
                    flushScheduled = false
                    startWriting()
                case .written(let batch, let recorded):
                    writing = false
                    written(batch, recorded: recorded, queue: &queue)
                }
            }
            // Only timers can be left: the sends have all returned.
            group.cancelAll()
        }
        if queue.expired > 0 {
            // The store was out of reach for longer than the lease: those rows go out from the queue again.
            logger.warning(
                "claimed deliveries waited past their lease and were left to the next claim",
                metadata: ["worker": id, "count": "\(queue.expired)"])
        }
        try finishMessages()
        return claimedTotal
    }

    /// Checks in one read that the claims waiting in the queue (all, or those not checked yet) are still this
    /// worker's, under the epoch each was claimed with, and drops the others unsent.
    /// - Returns: until when sending on this check is safe: ``Configuration/claimCheckInterval`` from before the
    ///   read, and no later than four fifths of the instance timeout past the heartbeat the read found.
    private func checkClaims(_ queue: inout SendQueue, uncheckedOnly: Bool) throws -> ContinuousClock.Instant {
        let started = ContinuousClock.now
        let waiting = queue.waiting(uncheckedOnly: uncheckedOnly)
        let check = try store.checkClaims(waiting, worker: id, now: clock.now.millisecondsSince1970)
        let lost = Set(zip(waiting, check.held).filter { !$0.1 }.map { SendQueue.Key($0.0) })
        let dropped = queue.drop(lost)
        if dropped > 0 {
            counters.claimsLost?.increment(by: dropped)
            logger.warning(
                "claims were taken from this worker (its instance taken for dead, or the message cancelled); dropped unsent",
                metadata: ["worker": id, "count": "\(dropped)"])
        }
        var valid = configuration.claimCheckInterval
        if let timeout = configuration.instanceTimeout, let age = check.heartbeatAge {
            valid = min(valid, timeout - timeout / 5 - .milliseconds(age))
        }
        return started + valid
    }

    private func finishMessages() throws {
        let finished = try store.finishMessages(now: clock.now.millisecondsSince1970)
        counters.messagesFinished?.increment(by: finished.count)
    }

    /// Decides each claimed delivery against its installation as it is now and its app's frequency cap: what
    /// goes out joins the queue, the rest is recorded as it is.
    /// - Parameter known: the installations as the resolver just read them, for a chunk it handed over.
    private func intake(
        _ deliveries: [MessageDelivery], installations known: [Installation]? = nil, leaseUntil: Int64, checked: Bool,
        into queue: inout SendQueue, completions: inout CompletionBuffer
    ) throws {
        for delivery in deliveries where !queue.knowsMessage(delivery.messageID) {
            queue.addMessage(
                delivery.messageID, try store.message(appID: delivery.appID, messageID: delivery.messageID))
        }
        // Policy is decided against the installations as they are now, when the chunk is claimed: read in one
        // go per app rather than one by one; the app's settings (rate, cap) are read afresh per chunk.
        var installations: [String: [String: Installation]] = [:]
        for (appID, claimed) in Dictionary(grouping: deliveries, by: \.appID) {
            var found =
                try known?.filter { $0.appID == appID }
                ?? store.installations(appID: appID, installationIDs: claimed.map(\.installationID))
            // `{{user.NAME}}` reads the user's profile: one read per chunk, and only for templated messages.
            if claimed.contains(where: { queue.templated[$0.messageID] == true }) {
                let profiles = try store.userAttributes(of: found, appID: appID)
                found = found.map { $0.withUserAttributes(from: profiles) }
            }
            installations[appID] = Dictionary(found.map { ($0.installationID, $0) }, uniquingKeysWith: { $1 })
            queue.settings[appID] = try store.sendSettings(appID: appID)
        }
        var capped: [String: [MessageDelivery]] = [:]
        var ready: [MessageDelivery] = []
        let now = clock.now
        // A local-time message's audience is checked again as each zone's deliveries come due.
        var leavers: [String: Set<String>] = [:]
        let recheck = AudienceRecheck(store: store)
        for (messageID, claimed) in Dictionary(grouping: deliveries, by: \.messageID) {
            guard let first = claimed.first, let message = queue.message(first) else { continue }
            leavers[messageID] = try recheck.leavers(
                of: message, deliveries: claimed, installations: installations[first.appID] ?? [:], now: now)
        }
        for delivery in deliveries {
            guard let message = queue.message(delivery) else {
                completions.append(delivery, .failed(reason: "message_missing"))
                continue
            }
            let installation = installations[delivery.appID]?[delivery.installationID]
            var decision = configuration.policy.decide(delivery, of: message, installation: installation, now: now)
            if leavers[delivery.messageID]?.contains(delivery.installationID) == true, !decision.isSkip {
                decision = .skip(.leftAudience)
            }
            switch decision {
            case .skip(let reason):
                completions.append(delivery, .skipped(reason: reason.rawValue))
            case .deferUntil(let date):
                completions.append(
                    delivery, .deferred(reason: "night", notBefore: date.millisecondsSince1970))
            case .send(let token, let tokenType):
                var current = delivery
                current.token = token
                current.tokenType = tokenType
                // Templates are rendered here, against the installation just read; untemplated messages skip it.
                if let installation, let size = queue.personalize(current, of: message, for: installation) {
                    // Debug, not info: a template that overflows for a whole audience would log once per device.
                    logger.debug(
                        "rendered payload over the limit; skipped",
                        metadata: [
                            "message_id": delivery.messageID, "installation_id": delivery.installationID,
                            "bytes": "\(size)", "limit": "\(message.kind.payloadLimit)",
                        ])
                    completions.append(delivery, .skipped(reason: PersonalizedPayload.tooLargeReason))
                    continue
                }
                if message.messageType.isMarketing && message.kind != .uninstallCheck
                    && queue.settings[delivery.appID]?.frequencyCap != nil
                {
                    capped[delivery.messageID, default: []].append(current)
                } else {
                    ready.append(current)
                }
            }
        }
        for (messageID, held) in capped {
            guard let first = held.first, let cap = queue.settings[first.appID]?.frequencyCap else { continue }
            let granted = try store.reserveFrequencySlots(
                appID: first.appID, messageID: messageID, installationIDs: held.map(\.installationID), cap: cap,
                now: now.millisecondsSince1970)
            for delivery in held {
                if granted.contains(delivery.installationID) {
                    ready.append(delivery)
                } else {
                    completions.append(
                        delivery, .skipped(reason: DeliveryPolicy.SkipReason.frequencyCap.rawValue))
                }
            }
        }
        queue.enqueue(ready, leaseUntil: leaseUntil, checked: checked)
    }

    /// Writes the waiting outcomes in one transaction and waits for it (the last write, when the worker stops).
    private func flush(_ completions: inout CompletionBuffer, queue: inout SendQueue) async throws {
        guard !completions.isEmpty else { return }
        let batch = completions.take()
        written(batch, recorded: try await recordOutcomes(batch.map(\.completion)), queue: &queue)
    }

    /// After a batch of outcomes was written: finishes the messages it was the last of (nothing of them left in
    /// `queue`), so the claims' look at every sending message stays short, forgets the messages `queue` no
    /// longer needs, and counts the outcomes.
    private func written(_ batch: [CompletionBuffer.Entry], recorded: [Bool], queue: inout SendQueue) {
        let ended = Set(
            batch.indices.filter { $0 < recorded.count && recorded[$0] }.map { batch[$0].completion.messageID }
        ).filter { !queue.holds($0) }
        do {
            let finished = try store.finishMessages(ids: Array(ended), now: clock.now.millisecondsSince1970)
            counters.messagesFinished?.increment(by: finished.count)
        } catch {
            // The periodic look finishes them instead.
            logger.warning("finishing messages failed: \(error)", metadata: ["worker": id])
        }
        queue.forgetIdleMessages()
        for (index, entry) in batch.enumerated() {
            guard index < recorded.count, recorded[index] else {
                logger.warning(
                    "a claim expired before its outcome was recorded",
                    metadata: ["message_id": entry.completion.messageID, "worker": id])
                continue
            }
            switch entry.completion.result {
            case .sent: counters.sent?.increment()
            case .failed: counters.failed?.increment()
            case .retry: counters.retried?.increment()
            case .deferred(let reason, _) where reason == DeliveryResult.interruptedReason:
                counters.handedBack?.increment()
            case .deferred: counters.deferred?.increment()
            case .skipped: counters.skipped?.increment()
            }
        }
    }

    /// Hands a chunk the resolver left for this worker back to the queue unsent, when the worker stops.
    private func handBack(_ batch: DeliveryHandoff.Batch?) {
        guard let batch else { return }
        let now = clock.now.millisecondsSince1970
        do {
            try store.completeDeliveries(
                batch.deliveries.map {
                    DeliveryCompletion($0, result: .deferred(reason: DeliveryResult.interruptedReason, notBefore: now))
                },
                worker: id, now: now)
        } catch {
            logger.warning(
                "handing back deliveries failed; they wait for their lease: \(error)", metadata: ["worker": id])
        }
    }

    /// Writes outcomes, retrying while the store cannot take them (a database restarting): an outcome given up
    /// here leaves its delivery claimed until the lease ends, and then the push goes out a second time.
    private func recordOutcomes(_ completions: [DeliveryCompletion]) async throws -> [Bool] {
        var attempt = 0
        while true {
            do {
                return try await Self.outcomeWriters.run { [store, id, clock] in
                    try store.completeDeliveries(completions, worker: id, now: clock.now.millisecondsSince1970)
                }
            } catch {
                attempt += 1
                guard attempt < Self.outcomeWriteAttempts, !Task.isCancelled else { throw error }
                logger.warning(
                    "recording \(completions.count) outcomes failed; retrying: \(error)",
                    metadata: ["worker": id, "attempt": "\(attempt)"])
                try await Task.sleep(for: .milliseconds(min(2_000, 50 << min(attempt, 6))))
            }
        }
    }

    /// Where outcomes are written: a write waits for its commit (on PostgreSQL a round trip and the WAL's flush
    /// to disk), which on one of Swift's cooperative threads, about one per core, would hold up every push's
    /// task meanwhile.
    static let outcomeWriters = WorkerThreadPool(threadCount: 2, name: "tidings-outcomes")

    /// How many times a batch of outcomes is tried: about 30 s of retries, longer than a database restart.
    static let outcomeWriteAttempts = 20

    /// What the worker's task group hands back.
    enum Event: Sendable {
        /// A push returned.
        case done(MessageDelivery, PushOutcome)
        /// A paced message may send again.
        case wake
        /// Outcomes waited long enough for their batch.
        case flush
        /// A batch of outcomes was written: which were recorded (false: the claim was no longer this worker's).
        case written([CompletionBuffer.Entry], [Bool])
    }

    /// The push of `delivery`: its rendered `payload` when its message has templates, else the stored one.
    static func push(_ delivery: MessageDelivery, _ message: MessageRecord, payload: [UInt8]? = nil) -> OutgoingPush {
        OutgoingPush(
            token: delivery.token, tokenType: delivery.tokenType,
            environment: OutgoingPush.Environment(rawValue: delivery.environment) ?? .production,
            topic: message.topic, pushType: message.kind.pushType, priority: message.priority,
            expiration: DeliveryPolicy.expiry(of: delivery, message).map { Date(millisecondsSince1970: $0) },
            collapseID: message.collapseID,
            payload: payload ?? message.payload(variant: delivery.variant, language: delivery.language),
            installationID: delivery.installationID)
    }

    /// What the provider's answer means for the delivery and for the token.
    private func providerResult(
        _ delivery: MessageDelivery, _ outcome: PushOutcome, message: MessageRecord?, now: Int64
    ) throws -> DeliveryResult {
        // A router may have sent the push to another of the installation's tokens: hygiene applies to that one.
        let token = outcome.token ?? delivery.token
        let tokenType = outcome.tokenType ?? delivery.tokenType
        switch outcome.disposition {
        case .sent:
            return .sent
        case .tokenInvalid(let since):
            let cleared = try store.deactivateToken(
                tokenType, token: token, appID: delivery.appID, installationID: delivery.installationID,
                invalidSince: since?.millisecondsSince1970, now: now)
            if cleared {
                counters.tokensDeactivated?.increment()
                // Only a token really taken away is an uninstall: one presented again after the provider's
                // timestamp belongs to an app that is still there.
                if message?.kind == .uninstallCheck {
                    try recordUninstall(delivery, token: token, tokenType: tokenType, since: since, outcome: outcome)
                }
            }
            return .failed(reason: outcome.reason ?? "token_invalid")
        case .tokenMismatch:
            try store.markTokenMismatch(
                token: token, appID: delivery.appID, installationID: delivery.installationID, now: now)
            return .failed(reason: outcome.reason ?? "token_mismatch")
        case .skipped:
            return .skipped(reason: outcome.reason ?? "no_provider")
        case .retry(let after):
            let reason = outcome.reason ?? "retry"
            if delivery.attempts + 1 >= configuration.maximumAttempts { return .failed(reason: reason) }
            return .retry(reason: reason, notBefore: now + backoff(attempt: delivery.attempts, after: after))
        case .failed:
            return .failed(reason: outcome.reason ?? "failed")
        case .interrupted:
            // This process cut the push off, not the provider: no attempt is used.
            return .deferred(reason: DeliveryResult.interruptedReason, notBefore: now)
        }
    }

    /// An uninstall check learnt the token is gone: an `uninstall` event at the time APNs says the app
    /// stopped taking pushes (APNs' 410 timestamp; now when the provider gives none, as FCM does).
    private func recordUninstall(
        _ delivery: MessageDelivery, token: String, tokenType: TokenType, since: Date?, outcome: PushOutcome
    ) throws {
        var attributes: [String: JSONValue] = ["source": "uninstall_check"]
        if let reason = outcome.reason { attributes["reason"] = .string(reason) }
        if let since { attributes["provider_timestamp"] = .integer(since.millisecondsSince1970) }
        let event = TidingsEvent(
            type: .uninstall, occurredAt: since?.millisecondsSince1970 ?? clock.now.millisecondsSince1970,
            installationID: delivery.installationID, messageID: delivery.messageID, token: token,
            tokenType: tokenType, environment: delivery.environment, attributes: attributes)
        _ = try store.insertEvents(
            appID: delivery.appID, events: [event], receivedAt: clock.now.millisecondsSince1970)
        counters.uninstallsRecorded?.increment()
    }

    /// Milliseconds to wait before retry number `attempt + 1`: backoff with full jitter, not under `after`.
    private func backoff(attempt: Int, after: Duration?) -> Int64 {
        let backoff = RetryBackoff(initial: configuration.initialBackoff, maximum: configuration.maximumBackoff)
        let delay = backoff.delay(attempt: attempt, retryAfter: after, random: configuration.random())
        return Int64(delay.seconds * 1000)
    }
}
