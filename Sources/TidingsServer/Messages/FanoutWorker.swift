import Foundation
import TidingsMetrics
import TidingsModel
import TidingsPush
import TidingsStore

/// Sends the pending deliveries of every message: claims a chunk of rows with a lease, sends them with
/// bounded concurrency through a ``PushProvider``, and records each outcome as soon as it arrives.
///
/// Several workers (in one process or many) share the queue: a claim is exclusive until its lease
/// expires. A worker that dies leaves its claims to expire; the next claim returns them to pending. A
/// restarted tidingsd that finds itself the only sender (``TidingsService`` takes the store's sender lock)
/// returns them at once.
///
/// At most once per installation per message: a row recorded as `sent` is never claimed again, and an
/// outcome is recorded only by the worker that still holds the claim. The one window is between the
/// provider's acceptance and the row update: a crash there leaves the row claimed, and after the lease it
/// is sent again. The window is kept to a single store write: each outcome is written the moment its push
/// returns (not at the end of the chunk), and the lease (default 5 minutes) is far longer than a send, so
/// a slow but live worker is never overtaken. The device de-duplicates by `tidings.id` for delivery events.
public final class FanoutWorker: Sendable {
    /// Chunk size, concurrency, lease and retry policy.
    public struct Configuration: Sendable, Equatable {
        /// Rows claimed at once.
        public var chunkSize = 500
        /// Pushes in flight at once.
        public var maximumInFlight = 64
        /// How long a claim is held; expired claims return to pending.
        public var lease: Duration = .seconds(300)
        /// How long an idle worker waits before looking again.
        public var pollInterval: Duration = .milliseconds(500)
        /// Sends per delivery before a retryable failure becomes final.
        public var maximumAttempts = 5
        /// The ceiling of the first retry's wait; it doubles per attempt, up to ``maximumBackoff``, and the
        /// wait is drawn uniformly below it (full jitter, ``RetryBackoff``), never under `Retry-After`.
        public var initialBackoff: Duration = .seconds(2)
        public var maximumBackoff: Duration = .seconds(300)
        /// Consent, night and expiry rules, applied to each delivery as it is claimed.
        public var policy = DeliveryPolicy()
        /// The jitter's uniform draw in `0..<1`; tests pin it.
        public var random: @Sendable () -> Double = { Double.random(in: 0..<1) }

        public init() {}

        /// Equal settings; the random source is a function and is not compared.
        public static func == (lhs: Configuration, rhs: Configuration) -> Bool {
            lhs.chunkSize == rhs.chunkSize && lhs.maximumInFlight == rhs.maximumInFlight && lhs.lease == rhs.lease
                && lhs.pollInterval == rhs.pollInterval && lhs.maximumAttempts == rhs.maximumAttempts
                && lhs.initialBackoff == rhs.initialBackoff && lhs.maximumBackoff == rhs.maximumBackoff
                && lhs.policy == rhs.policy
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

    public init(
        store: any Store, provider: any PushProvider, clock: any TidingsClock = SystemClock(),
        logger: Logger = .disabled(), configuration: Configuration = Configuration(),
        metrics: MetricsRegistry? = nil, id: String? = nil
    ) {
        self.id = id ?? "worker-" + UUID().lowercasedString
        self.store = store
        self.provider = provider
        self.clock = clock
        self.logger = logger
        self.configuration = configuration
        counters = FanoutCounters(registry: metrics)
    }

    /// Sends until nothing is due, then returns how many deliveries it processed.
    @discardableResult
    public func drain() async throws -> Int {
        var total = 0
        while !Task.isCancelled {
            let processed = try await runOnce()
            if processed == 0 { break }
            total += processed
        }
        return total
    }

    /// Sends until the task is cancelled, sleeping ``Configuration/pollInterval`` when idle.
    public func run() async {
        while !Task.isCancelled {
            var processed = 0
            do {
                processed = try await runOnce()
            } catch {
                logger.error("fan-out failed: \(error)", metadata: ["worker": id])
            }
            if processed == 0 {
                do { try await clock.sleep(for: configuration.pollInterval) } catch { return }
            }
        }
    }

    /// Claims one chunk, sends it and records the outcomes, then finishes messages with nothing left.
    /// - Returns: How many deliveries were claimed.
    @discardableResult
    public func runOnce() async throws -> Int {
        let now = clock.now.millisecondsSince1970
        let claimed = try store.claimDeliveries(
            worker: id, limit: configuration.chunkSize, now: now,
            leaseUntil: now + Int64(configuration.lease.seconds * 1000))
        if !claimed.isEmpty { try await send(claimed) }
        let finished = try store.finishMessages(now: clock.now.millisecondsSince1970)
        counters.messagesFinished?.increment(by: finished.count)
        return claimed.count
    }

    private func send(_ deliveries: [MessageDelivery]) async throws {
        var messages: [String: MessageRecord?] = [:]
        for delivery in deliveries where messages[delivery.messageID] == nil {
            messages[delivery.messageID] = .some(
                try store.message(appID: delivery.appID, messageID: delivery.messageID))
        }
        // Policy is decided against the installations as they are now, when the chunk is claimed: read in one
        // go per app rather than one by one.
        var installations: [String: [String: Installation]] = [:]
        for (appID, claimed) in Dictionary(grouping: deliveries, by: \.appID) {
            let found = try store.installations(appID: appID, installationIDs: claimed.map(\.installationID))
            installations[appID] = Dictionary(found.map { ($0.installationID, $0) }, uniquingKeysWith: { $1 })
        }
        var pending = deliveries.makeIterator()
        try await withThrowingTaskGroup(of: (MessageDelivery, Outcome).self) { group in
            let provider = self.provider
            func start(_ delivery: MessageDelivery) {
                guard let message = messages[delivery.messageID] ?? nil else {
                    group.addTask { (delivery, .messageMissing) }
                    return
                }
                let installation = installations[delivery.appID]?[delivery.installationID]
                switch configuration.policy.decide(delivery, of: message, installation: installation, now: clock.now) {
                case .skip(let reason):
                    group.addTask { (delivery, .skipped(reason)) }
                case .deferUntil(let date):
                    group.addTask { (delivery, .deferred(until: date)) }
                case .send(let token, let tokenType):
                    var current = delivery
                    current.token = token
                    current.tokenType = tokenType
                    let push = Self.push(current, message)
                    group.addTask { (current, .provider(await provider.send(push))) }
                }
            }
            for _ in 0..<max(1, configuration.maximumInFlight) {
                guard let next = pending.next() else { break }
                start(next)
            }
            while let (delivery, outcome) = try await group.next() {
                try record(delivery, outcome, message: messages[delivery.messageID] ?? nil)
                if let next = pending.next() { start(next) }
            }
        }
    }

    /// What became of one claimed delivery before it is recorded.
    enum Outcome: Sendable {
        /// The provider's answer.
        case provider(PushOutcome)
        /// Skipped by policy at send time; never sent, never retried.
        case skipped(DeliveryPolicy.SkipReason)
        /// Held by policy until then.
        case deferred(until: Date)
        /// The message row is gone.
        case messageMissing
    }

    static func push(_ delivery: MessageDelivery, _ message: MessageRecord) -> OutgoingPush {
        OutgoingPush(
            token: delivery.token, tokenType: delivery.tokenType,
            environment: OutgoingPush.Environment(rawValue: delivery.environment) ?? .production,
            topic: message.topic, pushType: message.kind.pushType, priority: message.priority,
            expiration: message.expiresAt.map { Date(millisecondsSince1970: $0) }, collapseID: message.collapseID,
            payload: message.payload(variant: delivery.variant, language: delivery.language),
            installationID: delivery.installationID)
    }

    private func record(_ delivery: MessageDelivery, _ outcome: Outcome, message: MessageRecord?) throws {
        let now = clock.now.millisecondsSince1970
        let result: DeliveryResult
        switch outcome {
        case .messageMissing: result = .failed(reason: "message_missing")
        case .skipped(let reason): result = .skipped(reason: reason.rawValue)
        case .deferred(let date): result = .deferred(reason: "night", notBefore: date.millisecondsSince1970)
        case .provider(let pushOutcome):
            result = try providerResult(delivery, pushOutcome, message: message, now: now)
        }
        let recorded = try store.completeDelivery(
            messageID: delivery.messageID, installationID: delivery.installationID, worker: id, result: result,
            now: now)
        guard recorded else {
            logger.warning(
                "a claim expired before its outcome was recorded",
                metadata: ["message_id": delivery.messageID, "worker": id])
            return
        }
        switch result {
        case .sent: counters.sent?.increment()
        case .failed: counters.failed?.increment()
        case .retry: counters.retried?.increment()
        case .deferred: counters.deferred?.increment()
        case .skipped: counters.skipped?.increment()
        }
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
