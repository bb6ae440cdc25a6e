import Foundation

/// Drains the durable event queue to `POST /v1/events` in bounded batches, settling events by receipt.
///
/// At most one upload is in flight: concurrent ``flush(reason:)`` calls run one after the other, and the
/// queue's leases keep another process (the extension) from sending the same rows. Events leave the
/// queue only when the server answers for them (`accepted`/`duplicate` → deleted, `rejected` → dropped
/// alone and counted) or when they are older than the maximum age; everything else stays and is sent
/// again after a backoff decided by ``RetryPolicy``.
///
/// Every batch goes out as one installation, named and proven by its secret (``InstallationSource``); until
/// the installation has registered and holds a secret, events wait in the queue. Events recorded under an
/// older installation id (after a reset) can no longer be proven: they go out with the current installation's
/// batches, the server answers `installation_mismatch` for each, and they are dropped and counted.
///
/// ```swift
/// let uploader = EventUploader(
///     configuration: .init(endpoint: url, appKey: key), queue: store,
///     installation: .stored(identity: { registrar.identity }, secrets: secretStore))
/// await uploader.start()                         // periodic flushes
/// await uploader.notifyEnqueued()                // after recording events: flushes past the threshold
/// let summary = await uploader.flush(reason: .background)
/// ```
public actor EventUploader {
    /// The settings in force; the app key can be replaced with ``replaceAppKey(_:)``.
    public private(set) var configuration: Configuration
    /// The backoff state: failures so far, the current batch limit and the earliest next attempt.
    public private(set) var retryState: RetryState
    /// Set when the server refused the app key or the installation; nothing is sent until ``resume()``,
    /// ``replaceAppKey(_:)``, or (for a refusal under one installation) a flush that finds another installation or
    /// secret.
    public private(set) var haltError: UploadError?

    private let queue: any EventQueue
    private let installation: InstallationSource
    /// The installation the halting refusal was for: a new id or secret is worth another try.
    private var haltedInstallation: Installation?
    private let transport: any HTTPTransport
    private let clock: any TidingsClock
    private var random: SendableRandomSource
    private var policy: RetryPolicy
    private var logger: Logger
    /// The last flush started; the next one waits for it, so only one request is ever in flight.
    private var tail: Task<UploadSummary, Never>?
    private var timer: Task<Void, Never>?
    private var timerStarted = false
    /// Events deleted during the running flush; seeing one leased again means the queue lost a delete,
    /// and the flush stops rather than resend in a loop.
    private var settledThisFlush: Set<UUID> = []

    /// Creates an uploader; nothing happens until a flush is asked for or ``start()`` is called.
    ///
    /// - Parameters:
    ///   - configuration: endpoint, key, limits and timings.
    ///   - queue: the durable queue (``EventStore`` in the app, an in-memory queue in tests).
    ///   - installation: the installation whose events these are, and its secret; nil holds the events.
    ///   - transport: the HTTP seam; URLSession by default.
    ///   - clock: drives the timer, backoff, and the maximum age.
    ///   - random: the jitter source; pass a seeded generator in tests.
    public init(
        configuration: Configuration, queue: any EventQueue, installation: InstallationSource,
        transport: any HTTPTransport = URLSessionTransport(), clock: any TidingsClock = SystemClock(),
        random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()
    ) {
        self.configuration = configuration
        self.queue = queue
        self.installation = installation
        self.transport = transport
        self.clock = clock
        self.random = SendableRandomSource(random)
        self.policy = configuration.retryPolicy
        self.retryState = configuration.retryPolicy.initialState
        self.logger = configuration.logger
    }

    /// When the next attempt may happen, if the uploader is backing off.
    public var nextRetryAt: Date? {
        retryState.notBefore.map { Date(millisecondsSince1970: $0) }
    }

    // MARK: - Flushing

    /// Uploads until the queue is empty, a retry must wait, or uploading is halted.
    ///
    /// Returns at once (with ``UploadSummary/nextRetryAt``) while a backoff is running: call again later,
    /// or let the timer of ``start()`` do it. Waits for a flush already in progress before it starts.
    @discardableResult
    public func flush(reason: FlushReason = .explicit) async -> UploadSummary {
        await runFlush(reason: reason, deadline: nil)
    }

    /// A best-effort flush that ends within `deadline`, for the Notification Service Extension.
    ///
    /// No batch starts after the deadline and each request's timeout is cut to the time left, so the
    /// flush returns close to the deadline even on a dead network. Unsent events stay queued.
    @discardableResult
    public func flush(deadline: Duration) async -> UploadSummary {
        let end = clock.now.millisecondsSince1970 + deadline.milliseconds
        return await runFlush(reason: .deadline, deadline: end)
    }

    /// Tells the uploader events were recorded; flushes (and returns its summary) once
    /// ``Configuration/flushThreshold`` events wait, unless a flush runs, a backoff waits or uploading halted.
    @discardableResult
    public func notifyEnqueued() async -> UploadSummary? {
        guard haltError == nil, tail == nil else { return nil }
        if let notBefore = retryState.notBefore, notBefore > clock.now.millisecondsSince1970 { return nil }
        let waiting: Int
        do {
            waiting = try queue.count()
        } catch {
            logger.info("cannot count queued events", metadata: ["error": "\(error)"])
            return nil
        }
        guard waiting >= configuration.flushThreshold else { return nil }
        return await flush(reason: .threshold)
    }

    // MARK: - Control

    /// Clears a halt (after 401/403) and any backoff, so the next flush sends at once.
    public func resume() {
        haltError = nil
        haltedInstallation = nil
        retryState = policy.initialState
        rescheduleTimer()
    }

    /// Uses `appKey` from now on and clears a halt, as ``resume()`` does.
    public func replaceAppKey(_ appKey: String) {
        configuration.appKey = appKey
        resume()
    }

    /// Starts the periodic timer: a flush every ``Configuration/flushInterval`` after the last flush,
    /// or when a backoff ends if that comes first.
    public func start() {
        timerStarted = true
        rescheduleTimer()
    }

    /// Stops the periodic timer; explicit flushes still work.
    public func stop() {
        timerStarted = false
        timer?.cancel()
        timer = nil
    }

    // MARK: - Internals

    private func runFlush(reason: FlushReason, deadline: Int64?) async -> UploadSummary {
        let previous = tail
        let task = Task {
            _ = await previous?.value
            return await self.drain(reason: reason, deadline: deadline)
        }
        tail = task
        let summary = await task.value
        if tail == task { tail = nil }
        rescheduleTimer()
        return summary
    }

    private func rescheduleTimer() {
        timer?.cancel()
        timer = nil
        guard timerStarted, haltError == nil else { return }
        let now = clock.now.millisecondsSince1970
        var wait = configuration.flushInterval.milliseconds
        if let notBefore = retryState.notBefore {
            wait = min(wait, max(0, notBefore - now))
        }
        let clock = self.clock
        timer = Task { [weak self] in
            guard !Task.isCancelled else { return }
            do {
                try await clock.sleep(for: .milliseconds(wait))
            } catch {
                return
            }
            guard !Task.isCancelled, let self else { return }
            await self.flush(reason: .interval)
        }
    }

    private func drain(reason: FlushReason, deadline: Int64?) async -> UploadSummary {
        var summary = UploadSummary(reason: reason)
        settledThisFlush = []
        defer { settledThisFlush = [] }
        batches: while true {
            let sender = installation.current()
            if let haltError {
                guard let haltedInstallation, let sender, sender != haltedInstallation else {
                    summary.error = haltError
                    break
                }
                // Refused as another installation (or with an old secret): the registrar has moved on since.
                self.haltError = nil
                self.haltedInstallation = nil
                retryState = policy.initialState
            }
            guard let sender else {
                summary.error = .notRegistered
                logger.debug("events wait until the installation has registered and holds its secret")
                break
            }
            let now = clock.now.millisecondsSince1970
            if let deadline, now >= deadline {
                summary.deadlineReached = true
                break
            }
            if let notBefore = retryState.notBefore, notBefore > now {
                summary.nextRetryAt = Date(millisecondsSince1970: notBefore)
                break
            }
            let lease: EventLease
            do {
                let expired = try queue.dropEvents(olderThan: now - configuration.maximumEventAge.milliseconds)
                if expired > 0 {
                    summary.expired += expired
                    logger.info("dropped events past the maximum age", metadata: ["count": "\(expired)"])
                }
                let limit = max(1, min(retryState.batchLimit, configuration.maximumBatchEvents))
                let budget = configuration.maximumBatchBytes - EventBatchBody.overhead(eventCount: limit)
                guard let leased = try queue.lease(maxEvents: limit, maxBytes: max(1, budget)) else { break }
                lease = leased
            } catch {
                summary.error = .queue(message: "\(error)")
                logger.info("cannot lease events", metadata: ["error": "\(error)"])
                break
            }
            if lease.events.isEmpty {
                release(lease)
                break
            }
            if lease.events.contains(where: { settledThisFlush.contains($0.eventID) }) {
                release(lease)
                summary.error = .queue(message: "the queue handed out events it had been told to delete")
                logger.info("the queue returned deleted events; stopping this flush")
                break
            }
            do {
                if try await upload(lease, as: sender, deadline: deadline, summary: &summary) == .stop {
                    break batches
                }
            } catch {
                summary.error = .queue(message: "\(error)")
                logger.info("cannot settle events", metadata: ["error": "\(error)"])
                break
            }
        }
        do {
            summary.remaining = try queue.count()
        } catch {
            logger.info("cannot count queued events", metadata: ["error": "\(error)"])
        }
        return summary
    }

    private enum Next { case again, stop }

    /// Sends one leased batch and settles it; says whether the flush goes on.
    private func upload(
        _ lease: EventLease, as sender: Installation, deadline: Int64?, summary: inout UploadSummary
    ) async throws -> Next {
        let ids = lease.events.map(\.eventID)
        let body = EventBatchBody.make(lease.events)
        if body.count > configuration.maximumBatchBytes {
            if lease.events.count == 1 {
                // One event larger than a whole batch: the server would answer 413, so don't ask.
                try queue.reject(ids, reason: "too_large", lease: lease)
                settledThisFlush.formUnion(ids)
                summary.rejected += 1
                logger.info("dropped an event larger than a batch", metadata: ["bytes": "\(body.count)"])
            } else {
                retryState.batchLimit = max(1, lease.events.count / 2)
                release(lease)
            }
            return .again
        }

        var timeout = configuration.requestTimeout
        if let deadline {
            timeout = min(timeout, .milliseconds(max(1, deadline - clock.now.millisecondsSince1970)))
        }
        let keyUsed = configuration.appKey
        let request = TransportRequest(
            method: "POST", url: configuration.eventsURL,
            headers: [
                "Authorization": "Bearer \(configuration.appKey)",
                "Content-Type": "application/json",
                "Accept": "application/json",
                "User-Agent": configuration.userAgent,
                Self.installationHeader: sender.installationID,
                InstallationSecret.headerName: sender.secret.value,
            ],
            body: body, timeout: timeout)
        summary.requests += 1
        summary.sent += ids.count

        var settlement: ReceiptSettlement?
        let outcome: UploadOutcome
        do {
            let response = try await transport.send(request)
            if response.isSuccess {
                settlement = ReceiptSettlement(body: response.body, batch: lease.events)
                outcome = settlement.map { .receipts(missing: $0.missing.count) } ?? .unreadableResponse
            } else {
                let retryAfter = RetryAfter.parse(
                    response.header("Retry-After"), now: clock.now.millisecondsSince1970)
                outcome = .status(response.status, retryAfter: retryAfter)
            }
        } catch {
            outcome = .transportFailure(error.code)
            logger.info("upload failed", metadata: ["error": error.description, "events": "\(ids.count)"])
        }

        let decision = policy.decide(
            after: outcome, batchSize: ids.count, state: retryState, now: clock.now.millisecondsSince1970,
            random: &random)
        retryState = decision.state
        logger.debug(
            "upload attempt", metadata: ["outcome": "\(outcome)", "events": "\(ids.count)", "bytes": "\(body.count)"])

        var unsettled = ids.count
        if let settlement {
            let stored = settlement.accepted + settlement.duplicates
            if !stored.isEmpty { try queue.acknowledge(stored, lease: lease) }
            settledThisFlush.formUnion(stored)
            for (reason, rejected) in settlement.rejected.sorted(by: { $0.key < $1.key }) {
                try queue.reject(rejected, reason: reason, lease: lease)
                settledThisFlush.formUnion(rejected)
            }
            summary.accepted += settlement.accepted.count
            summary.duplicates += settlement.duplicates.count
            summary.rejected += settlement.rejectedCount
            unsettled = settlement.missing.count
            if settlement.rejectedCount > 0 {
                logger.info("server rejected events", metadata: ["count": "\(settlement.rejectedCount)"])
            }
        }

        switch decision.action {
        case .proceed:
            if unsettled > 0 { release(lease) }
            return .again
        case .retryLater(let at):
            if unsettled > 0 { release(lease) }
            if case .transportFailure(.cancelled) = outcome { return .stop }
            summary.nextRetryAt = Date(millisecondsSince1970: at)
            logger.info("upload backing off", metadata: ["outcome": "\(outcome)", "retry_at_ms": "\(at)"])
            return .stop
        case .shrinkBatch:
            release(lease)
            logger.info("server refused the batch; halving it", metadata: ["events": "\(decision.state.batchLimit)"])
            return .again
        case .rejectEvent(let reason):
            try queue.reject(ids, reason: reason, lease: lease)
            settledThisFlush.formUnion(ids)
            summary.rejected += ids.count
            logger.info("server refused a single event; dropped it", metadata: ["reason": reason])
            return .again
        case .halt(let error):
            release(lease)
            if configuration.appKey != keyUsed {
                // The key was replaced while this request was in flight: the refusal was for the old key.
                retryState = policy.initialState
                return .again
            }
            haltError = error
            haltedInstallation = sender
            summary.error = error
            logger.info(
                "uploading halted until the app key or the installation changes, or resume() is called",
                metadata: ["code": error.code])
            return .stop
        }
    }

    /// The header naming the installation a batch comes from.
    static let installationHeader = "X-Tidings-Installation"

    /// Gives unsettled rows back at once. A failure is only logged: the lease expires on its own.
    private func release(_ lease: EventLease) {
        do {
            try queue.release(lease)
        } catch {
            logger.debug("cannot release a lease; it will expire", metadata: ["error": "\(error)"])
        }
    }
}
