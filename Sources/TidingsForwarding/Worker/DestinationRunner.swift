import Foundation
import TidingsMetrics
import TidingsModel
import TidingsStore

/// One destination's loop: replays the dead letters asked for, steps a running backfill, then sends the
/// next page after the cursor (one batch, or several side by side split by installation), until the
/// destination is paused or removed, its lease is lost, or the worker stops.
///
/// A batch that fails with a retryable error is sent again, the same events in the same order, after
/// ``ForwardingBackoff``'s delay, for as long as it takes: nothing after it goes first (the next page waits
/// for every batch of this one), so order per installation holds. One the destination refuses for good is parked as a dead letter and the cursor
/// moves past it.
final class DestinationRunner: Sendable {
    /// What a live step found.
    private enum LiveProgress: Equatable {
        /// A full page went: more may be waiting.
        case more
        /// The last events stored went: more are likely to follow soon.
        case caughtUp
        /// Nothing new, or sending stopped.
        case idle
    }

    private enum Outcome: Sendable {
        case delivered
        case refused(ForwardingFailure)
        /// Paused, removed, lease lost or cancelled while retrying.
        case stopped

        var isStopped: Bool {
            if case .stopped = self { return true }
            return false
        }
    }

    private let worker: ForwardingWorker
    private let forwarderID: String
    private let appID: String
    private let destination: any ForwardingDestination
    /// When the lease this runner last took ends, unix milliseconds (0: not held).
    private let leaseEnds = LockedBox<Int64>(0)
    /// When `user.deleted` records the destination refused may be sent again, unix milliseconds.
    private let erasureNoticesDueAt = LockedBox<Int64>(0)
    /// The live page read while the previous batch was in flight, and the cursor it follows.
    private let readAhead = LockedBox<(after: Int64, page: ForwardingEventPage)?>(nil)
    private let forwardedEvents: Counter?
    private let failures: Counter?
    private let deadLettered: Counter?
    private let lagEvents: Gauge?
    private let lagSeconds: Gauge?
    private let healthy: Gauge?

    init(worker: ForwardingWorker, forwarder: ForwarderRecord, destination: any ForwardingDestination) {
        self.worker = worker
        forwarderID = forwarder.id
        appID = forwarder.appID
        self.destination = destination
        let labels = ["app_id": forwarder.appID, "forwarder_id": forwarder.id, "kind": forwarder.kind.rawValue]
        let metrics = worker.metrics
        forwardedEvents = metrics?.counter(
            name: "tidings_forwarded_events_total", help: "Events a destination took.", labels: labels)
        failures = metrics?.counter(
            name: "tidings_forwarding_failures_total", help: "Batches a destination failed to take.", labels: labels)
        deadLettered = metrics?.counter(
            name: "tidings_forwarding_dead_letters_total", help: "Batches a destination refused for good.",
            labels: labels)
        lagEvents = metrics?.gauge(
            name: "tidings_forwarding_lag_events", help: "Stored events a destination has not taken yet.",
            labels: labels)
        lagSeconds = metrics?.gauge(
            name: "tidings_forwarding_lag_seconds",
            help: "Age of the oldest stored event a destination has not taken yet.", labels: labels)
        healthy = metrics?.gauge(
            name: "tidings_forwarding_healthy",
            help: "1 while a destination takes batches or has failed for less than the unhealthy threshold.",
            labels: labels)
    }

    private var store: any Store { worker.store }
    private var configuration: ForwardingWorker.Configuration { worker.configuration }
    private var now: Int64 { worker.clock.now.millisecondsSince1970 }
    private var batchSize: Int { max(1, min(configuration.batchSize, destination.maximumBatchSize)) }
    /// How many batches of a backlog go out side by side.
    private var lanes: Int { destination.takesBatchesSideBySide ? max(1, configuration.batchesInFlight) : 1 }

    func run() async {
        defer {
            destination.close()
            try? store.releaseForwarderLease(id: forwarderID, owner: worker.owner)
        }
        worker.logger.info("forwarding started", metadata: ["forwarder_id": forwarderID, "app_id": appID])
        let measuring = measureWhileRunning()
        // When the live stream last sent something, unix milliseconds.
        var lastSentAt = Int64.min / 2
        while !Task.isCancelled {
            do {
                guard let forwarder = try currentForwarder() else { break }
                guard try renewLease() else {
                    // Another process forwards this destination; try again when its lease may have ended.
                    try await worker.clock.sleep(for: configuration.leaseDuration / 3)
                    continue
                }
                var busy = try await sendErasureNotices(forwarder)
                busy = try await replayDeadLetter(forwarder) || busy
                busy = try await stepBackfill(forwarder) || busy
                let live = try await sendNextPage(forwarder)
                if live != .idle { lastSentAt = now }
                if !busy && live != .more {
                    // While events keep arriving (something went within the last few idle intervals), look
                    // again soon, so a destination follows steady ingest closely instead of letting a batch
                    // wait out a whole idle interval; a quiet one polls at the idle interval.
                    let recent = now - lastSentAt < Int64(configuration.idleInterval.seconds * 5000)
                    try await worker.clock.sleep(
                        for: recent ? configuration.idleInterval / 8 : configuration.idleInterval)
                }
            } catch is CancellationError {
                break
            } catch {
                worker.logger.warning(
                    "forwarding paused by a store error", metadata: ["forwarder_id": forwarderID, "error": "\(error)"])
                try? await worker.clock.sleep(for: configuration.idleInterval * 5)
            }
        }
        measuring?.cancel()
        await measuring?.value
        lagEvents?.set(0)
        lagSeconds?.set(0)
        worker.logger.info("forwarding stopped", metadata: ["forwarder_id": forwarderID])
    }

    /// The destination as stored, nil when it was paused or removed.
    private func currentForwarder() throws -> ForwarderRecord? {
        guard let forwarder = try store.forwarder(appID: appID, id: forwarderID), forwarder.state == .active else {
            return nil
        }
        return forwarder
    }

    /// Takes or extends the lease. While more than two thirds of it is left nobody else can hold it, so
    /// the store is not written: one write a batch (the cursor) instead of two.
    private func renewLease() throws -> Bool {
        let now = self.now
        let duration = Int64(configuration.leaseDuration.seconds * 1000)
        if leaseEnds.withLock({ now < $0 - duration / 3 }) { return true }
        let held = try store.acquireForwarderLease(
            id: forwarderID, owner: worker.owner, now: now, until: now + duration)
        leaseEnds.withLock { $0 = held ? now + duration : 0 }
        return held
    }

    // MARK: Live events

    /// Reads the live page after `cursor`, keeping back events young enough that PostgreSQL may still
    /// commit older neighbours below them (``Store/eventVisibilityDelay``).
    private func readLive(after cursor: Int64) throws -> ForwardingEventPage {
        var page = try store.forwardingEvents(
            appID: appID, query: ForwardingEventQuery(afterSequence: cursor, limit: batchSize * lanes))
        let delay = store.eventVisibilityDelay
        if delay > 0, let young = page.rows.firstIndex(where: { $0.receivedAt > now - delay }) {
            page.rows.removeSubrange(young...)
            page.scannedThrough = page.rows.last?.sequence ?? cursor
            page.reachedEnd = true
        }
        return page
    }

    /// The page read ahead for `cursor` while the previous page's batches were in flight, or a fresh read.
    private func livePage(after cursor: Int64) throws -> ForwardingEventPage {
        let ahead = readAhead.withLock { ahead in
            defer { ahead = nil }
            return ahead
        }
        // Read ahead after the previous page's end: valid only when the cursor moved exactly there, and
        // worth sending only when it was a full page (events stored since would make a partial one larger).
        if let ahead, ahead.after == cursor, !ahead.page.reachedEnd { return ahead.page }
        return try readLive(after: cursor)
    }

    /// Sends the page after the cursor and says what it found.
    ///
    /// A page that fills more than one batch goes out as several batches side by side, split by installation
    /// (``ForwardingLanes``), when the destination takes that; the cursor moves once every one of them went
    /// through or was parked. While they are in flight the next page is read (the events after this page,
    /// whatever the outcome: delivered and parked batches both move the cursor to its end), so the store
    /// read and the destination's round trips overlap.
    private func sendNextPage(_ forwarder: ForwarderRecord) async throws -> LiveProgress {
        let cursor = forwarder.cursor
        let page = try livePage(after: cursor)
        guard page.scannedThrough > cursor else { return .idle }
        let plan = ForwardingLanes.split(page, filter: forwarder.filter, lanes: lanes, batchSize: batchSize)
        guard !plan.batches.isEmpty else {
            // Nothing to send up to there (filtered out, or other apps' events): the cursor moves on.
            try store.advanceForwarderCursor(id: forwarderID, owner: worker.owner, to: plan.through, now: now)
            return plan.reachedEnd ? .idle : .more
        }
        let batches = plan.batches.map { events in
            ForwardingBatch(
                id: "\(forwarderID)-\(events[0].row.sequence)-\(events[events.count - 1].row.sequence)",
                forwarderID: forwarderID, appID: appID, events: events)
        }
        let outcomes: [Outcome]
        if plan.reachedEnd {
            outcomes = try await sendSideBySide(batches)
        } else {
            async let following = try? readLive(after: plan.through)
            outcomes = try await sendSideBySide(batches)
            let next = await following
            if let next, !outcomes.contains(where: \.isStopped) {
                readAhead.withLock { $0 = (plan.through, next) }
            }
        }
        // Paused, removed or no longer ours: the cursor stays, and the page is sent again by whoever goes on.
        guard !outcomes.contains(where: \.isStopped) else { return .idle }
        let refused = zip(batches, outcomes).compactMap { batch, outcome -> (ForwardingBatch, ForwardingFailure)? in
            if case .refused(let failure) = outcome { return (batch, failure) }
            return nil
        }
        guard refused.isEmpty else {
            try park(refused, movingCursorTo: plan.through)
            return .more
        }
        try store.advanceForwarderCursor(id: forwarderID, owner: worker.owner, to: plan.through, now: now)
        return plan.reachedEnd ? .caughtUp : .more
    }

    /// Sends every batch at once (each retried on its own until it goes through or is refused) and waits
    /// for all of them.
    private func sendSideBySide(_ batches: [ForwardingBatch]) async throws -> [Outcome] {
        if batches.count == 1 { return [try await send(batches[0])] }
        return try await withThrowingTaskGroup(of: (Int, Outcome).self) { group in
            for (index, batch) in batches.enumerated() {
                group.addTask { (index, try await self.send(batch)) }
            }
            var outcomes = [Outcome](repeating: .stopped, count: batches.count)
            for try await (index, outcome) in group { outcomes[index] = outcome }
            return outcomes
        }
    }

    // MARK: Backfill

    /// Sends the next page of a running backfill; true when it sent something or may have more right away.
    private func stepBackfill(_ forwarder: ForwarderRecord) async throws -> Bool {
        guard let backfill = forwarder.backfill else { return false }
        let page = try store.forwardingEvents(
            appID: appID,
            query: ForwardingEventQuery(
                afterSequence: backfill.cursor, occurredSince: backfill.since, occurredUntil: backfill.until,
                limit: batchSize))
        let forwarded = ForwardingFilter.forwarded(page.rows, forwarder.filter)
        if let first = page.rows.first, let last = page.rows.last, !forwarded.isEmpty {
            let batch = ForwardingBatch(
                id: "\(forwarderID)-backfill-\(first.sequence)-\(last.sequence)", forwarderID: forwarderID,
                appID: appID, events: forwarded)
            switch try await send(batch) {
            case .delivered: break
            case .refused(let failure):
                try park(batch, first: first.sequence, last: last.sequence, failure: failure, advancesCursor: false)
            case .stopped: return false
            }
        }
        guard !page.reachedEnd else {
            try store.advanceForwarderBackfill(id: forwarderID, owner: worker.owner, to: nil)
            worker.logger.info("backfill finished", metadata: ["forwarder_id": forwarderID])
            return !page.rows.isEmpty
        }
        try store.advanceForwarderBackfill(id: forwarderID, owner: worker.owner, to: page.scannedThrough)
        return true
    }

    // MARK: Erasures

    /// Sends the `user.deleted` records queued for the destination (one batch) and removes them once it took
    /// them; true when some went. A refused batch stays queued and is offered again after five idle intervals:
    /// an erasure is never dropped, and never parked where its user id would outlive the queue.
    private func sendErasureNotices(_ forwarder: ForwarderRecord) async throws -> Bool {
        guard erasureNoticesDueAt.withLock({ now >= $0 }) else { return false }
        let notices = try store.erasureNotices(forwarderID: forwarderID, limit: batchSize)
        guard let first = notices.first else { return false }
        let batch = ForwardingBatch(
            id: "\(forwarderID)-erasure-\(first.erasedAt)-\(notices.count)", forwarderID: forwarderID, appID: appID,
            events: notices.map { ErasureRecord.event($0, droppedFields: forwarder.filter.droppedFields) })
        switch try await send(batch) {
        case .delivered:
            try store.removeErasureNotices(forwarderID: forwarderID, ids: notices.map(\.id))
            return true
        case .refused(let failure):
            try store.recordForwarderFailure(id: forwarderID, at: now, message: failure.description)
            let retryAt = now + Int64(configuration.idleInterval.seconds * 5000)
            erasureNoticesDueAt.withLock { $0 = retryAt }
            worker.logger.warning(
                "user.deleted records refused; kept to send again",
                metadata: [
                    "forwarder_id": forwarderID, "records": String(notices.count), "error": failure.description,
                ])
            return false
        case .stopped:
            return false
        }
    }

    // MARK: Dead letters

    /// Sends the oldest dead letter waiting for a replay; true when there was one.
    private func replayDeadLetter(_ forwarder: ForwarderRecord) async throws -> Bool {
        guard
            let letter = try store.deadLetters(appID: appID, forwarderID: forwarderID).first(where: {
                $0.state == .replaying
            })
        else { return false }
        let page = try store.forwardingEvents(
            appID: appID,
            query: ForwardingEventQuery(
                afterSequence: letter.firstSequence - 1, throughSequence: letter.lastSequence,
                limit: max(letter.eventCount, configuration.batchSize)))
        let forwarded = ForwardingFilter.forwarded(page.rows, forwarder.filter)
        guard !forwarded.isEmpty else {
            // Its events are gone (forgotten, or the filter now keeps them back): nothing is left to send.
            try store.finishDeadLetterReplay(id: letter.id, delivered: true, status: nil, error: "", now: now)
            return true
        }
        let batch = ForwardingBatch(
            id: "\(forwarderID)-\(letter.firstSequence)-\(letter.lastSequence)", forwarderID: forwarderID,
            appID: appID, events: Array(forwarded.prefix(destination.maximumBatchSize)))
        switch try await send(batch) {
        case .delivered:
            try store.finishDeadLetterReplay(id: letter.id, delivered: true, status: nil, error: "", now: now)
        case .refused(let failure):
            try store.finishDeadLetterReplay(
                id: letter.id, delivered: false, status: failure.status, error: failure.message, now: now)
        case .stopped:
            return false
        }
        return true
    }

    private func park(
        _ batch: ForwardingBatch, first: Int64, last: Int64, failure: ForwardingFailure, advancesCursor: Bool
    ) throws {
        let letter = deadLetter(batch, first: first, last: last, failure: failure)
        try store.parkDeadLetter(letter, owner: worker.owner, advancesCursor: advancesCursor)
        parked([letter], failures: [failure])
    }

    /// Parks the refused batches of a live page and moves the cursor past the page, in one transaction.
    private func park(_ refused: [(ForwardingBatch, ForwardingFailure)], movingCursorTo sequence: Int64) throws {
        let letters = refused.map { batch, failure in
            deadLetter(
                batch, first: batch.events[0].row.sequence, last: batch.events[batch.events.count - 1].row.sequence,
                failure: failure)
        }
        try store.parkDeadLetters(letters, forwarderID: forwarderID, owner: worker.owner, movingCursorTo: sequence)
        parked(letters, failures: refused.map(\.1))
    }

    private func deadLetter(_ batch: ForwardingBatch, first: Int64, last: Int64, failure: ForwardingFailure)
        -> DeadLetterRecord
    {
        let now = self.now
        return DeadLetterRecord(
            id: "dl_" + UUID().uuidString.lowercased(), forwarderID: forwarderID, appID: appID, firstSequence: first,
            lastSequence: last, eventCount: batch.events.count, status: failure.status,
            error: String(failure.message.prefix(500)), createdAt: now, updatedAt: now)
    }

    private func parked(_ letters: [DeadLetterRecord], failures: [ForwardingFailure]) {
        for (letter, failure) in zip(letters, failures) {
            deadLettered?.increment()
            worker.logger.warning(
                "batch refused; parked as a dead letter",
                metadata: [
                    "forwarder_id": forwarderID, "dead_letter_id": letter.id, "events": String(letter.eventCount),
                    "error": failure.description,
                ])
        }
    }

    // MARK: Sending

    /// Sends until the destination takes the batch or refuses it for good, waiting between attempts.
    private func send(_ batch: ForwardingBatch) async throws -> Outcome {
        var attempt = 0
        while true {
            try Task.checkCancellation()
            do {
                try await destination.deliver(batch)
                forwardedEvents?.increment(by: batch.events.count)
                healthy?.set(1)
                return .delivered
            } catch {
                if Task.isCancelled { throw CancellationError() }
                failures?.increment()
                if error.kind == .permanent { return .refused(error) }
                try store.recordForwarderFailure(id: forwarderID, at: now, message: error.description)
                let delay = configuration.backoff.delay(
                    attempt: attempt, retryAfter: error.retryAfter, random: worker.random())
                attempt += 1
                worker.logger.warning(
                    "forwarding failed; retrying",
                    metadata: [
                        "forwarder_id": forwarderID, "batch_id": batch.id, "attempt": String(attempt),
                        "retry_in_ms": String(Int64(delay.seconds * 1000)), "error": error.description,
                    ])
                if let forwarder = try store.forwarder(appID: appID, id: forwarderID) {
                    measure(forwarder)
                }
                try await worker.clock.sleep(for: delay)
                guard try currentForwarder() != nil, try renewLease() else { return .stopped }
            }
        }
    }

    // MARK: Metrics

    /// Measures every ``ForwardingWorker/Configuration/metricsInterval`` of real time beside the sending loop,
    /// so the gauges stay current while a destination hangs on a batch: exactly when an alert needs them.
    /// Nil when nobody reads metrics.
    private func measureWhileRunning() -> Task<Void, Never>? {
        guard lagEvents != nil else { return nil }
        return Task { [self] in
            while !Task.isCancelled {
                if let forwarder = try? store.forwarder(appID: appID, id: forwarderID) {
                    measure(forwarder)
                }
                try? await ContinuousClock().sleep(for: configuration.metricsInterval)
            }
        }
    }

    /// Updates the lag and health gauges from the store.
    private func measure(_ forwarder: ForwarderRecord) {
        guard lagEvents != nil, let backlog = try? store.eventBacklog(appID: appID, afterSequence: forwarder.cursor)
        else { return }
        let now = self.now
        lagEvents?.set(Double(backlog.count))
        lagSeconds?.set(backlog.oldestReceivedAt.map { Double(max(0, now - $0)) / 1000 } ?? 0)
        let threshold = Int64(configuration.unhealthyAfter.seconds * 1000)
        healthy?.set(forwarder.failingSince.map { now - $0 > threshold ? 0 : 1 } ?? 1)
    }
}
