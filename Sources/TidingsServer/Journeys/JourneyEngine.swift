import Foundation
import TidingsCampaigns
import TidingsModel
import TidingsStore

/// Runs journeys: turns queued signals into entries, exits and woken waits, and walks the runs that are due,
/// storing each walk's messages with the run's new place in one transaction and resolving them at once.
///
/// Every instance walks runs (claims keep them apart); signals are handled by the instance that leads the
/// scheduled work, so a signal is handled in one place (a repeat would change nothing anyway: entries are keyed
/// by their signal and outside changes are fenced by the run's epoch).
public final class JourneyEngine: Sendable {
    public struct Configuration: Sendable {
        /// Runs claimed per look.
        public var batchSize = 200
        /// Signals read per look.
        public var signalBatchSize = 500
        /// How long a claim holds a run before another instance may take it over.
        public var lease: Duration = .seconds(30)
        /// How long an idle engine waits before looking again.
        public var pollInterval: Duration = .milliseconds(50)
        /// How a step's audience is read: a person with more installations than a chunk is resolved after the
        /// walk instead of in it.
        public var resolution = CampaignResolver.Configuration()

        public init() {}
    }

    public let id: String
    let store: any Store
    let clock: any TidingsClock
    let logger: Logger
    let catalog: JourneyCatalog
    let composer: MessageComposer
    let configuration: Configuration
    private let resolver: CampaignResolver
    private let scheduler: JourneyScheduler
    private let segmentTriggers: JourneySegmentTriggers
    /// Told when a walk has queued deliveries, so the fan-out sends them without waiting for its next poll.
    private let deliveriesQueued = LockedBox<(@Sendable () -> Void)?>(nil)

    init(
        store: any Store, clock: any TidingsClock, logger: Logger, catalog: JourneyCatalog, composer: MessageComposer,
        configuration: Configuration = Configuration(), id: String? = nil
    ) {
        self.id = id ?? "journeys-" + UUID().lowercasedString
        self.store = store
        self.clock = clock
        self.logger = logger
        self.catalog = catalog
        self.composer = composer
        self.configuration = configuration
        resolver = CampaignResolver(
            store: store, clock: clock, logger: logger, configuration: configuration.resolution, id: self.id)
        scheduler = JourneyScheduler(store: store, clock: clock, catalog: catalog, logger: logger)
        segmentTriggers = JourneySegmentTriggers(store: store, clock: clock, catalog: catalog, logger: logger)
    }

    /// Calls `action` whenever a walk has queued deliveries (the server wakes its fan-out workers).
    public func whenDeliveriesQueued(_ action: @escaping @Sendable () -> Void) {
        deliveriesQueued.withLock { $0 = action }
    }

    /// Enters the people whose scheduled entry is due (``JourneyScheduler``); the leader runs it periodically.
    /// - Returns: how many entered.
    @discardableResult
    public func runSchedules() throws -> Int { try scheduler.runDue() }

    /// Enters the people who joined the segment of a segment-triggered journey since the last sweep
    /// (``JourneySegmentTriggers``); the leader runs it periodically.
    /// - Returns: how many entered.
    @discardableResult
    public func runSegmentSweep() throws -> Int { try segmentTriggers.sweep() }

    /// Handles queued signals (when `signals`) and walks every run due now.
    /// - Returns: how many signals and runs it handled.
    @discardableResult
    public func runOnce(signals: Bool = true) throws -> Int {
        var handled = 0
        if signals { handled += try handleSignals() }
        while true {
            let walked = try walkDueRuns()
            handled += walked
            if walked < configuration.batchSize { break }
        }
        return handled
    }

    /// Works until the task is cancelled; `handlesSignals` says, at each look, whether this instance leads.
    public func run(handlesSignals: @escaping @Sendable () -> Bool) async {
        while !Task.isCancelled {
            var worked = false
            do {
                worked = try runOnce(signals: handlesSignals()) > 0
            } catch {
                logger.error("journeys: \(error)", metadata: ["engine": id])
            }
            if !worked {
                do { try await clock.sleep(for: configuration.pollInterval) } catch { return }
            }
        }
    }

    // MARK: Signals

    func handleSignals() throws -> Int {
        let signals = try store.journeySignals(limit: configuration.signalBatchSize)
        guard !signals.isEmpty else { return 0 }
        var done: [Int64] = []
        var entries: [(run: JourneyRunRecord, minimumGap: Int64?)] = []
        for signal in signals {
            // Signals act in order: a person's pending entries are written before a later signal of theirs
            // (a purchase right after the add to cart) can end or wake the run.
            let subjects = Set(JourneySubject.all(of: signal))
            if entries.contains(where: { subjects.contains($0.run.subject) }) {
                _ = try store.enterJourneys(entries)
                entries.removeAll()
            }
            let (complete, entering) = try reactions(to: signal)
            entries += entering
            if complete { done.append(signal.id) }
        }
        // The rest of the look's entries in one transaction; a signal kept for another look enters no one twice
        // (its entries are keyed by it).
        _ = try store.enterJourneys(entries)
        try store.removeJourneySignals(ids: done)
        return signals.count
    }

    /// Ends or wakes the person's runs the signal concerns, and returns the entries it triggers. `complete` is
    /// false when a run changed under it: the signal stays queued and is handled again at the next look.
    func reactions(to signal: JourneySignal) throws -> (
        complete: Bool, entries: [(run: JourneyRunRecord, minimumGap: Int64?)]
    ) {
        let now = clock.now.millisecondsSince1970
        var complete = true
        if signal.kind == .event {
            for run in try store.activeJourneyRuns(appID: signal.appID, subjects: JourneySubject.all(of: signal)) {
                guard let definition = try catalog.definition(journeyID: run.journeyID, version: run.version) else {
                    continue
                }
                guard let change = Self.reaction(to: signal, of: run, in: definition, now: now) else { continue }
                if try !store.commitJourneyRun(change, owner: nil, leaseUntil: nil) { complete = false }
            }
        }
        var entries: [(run: JourneyRunRecord, minimumGap: Int64?)] = []
        let journeys = try catalog.journeys(appID: signal.appID)
        // A segment join is recorded with its entry in one transaction, apart from the entries below.
        try segmentTriggers.react(to: signal, journeys: journeys)
        for (journey, definition) in journeys.active where Self.triggers(definition.trigger, signal) {
            guard let first = definition.steps.first else { continue }
            let subject = JourneySubject(signal: signal)
            let run = JourneyRunRecord(
                id: "jr_" + UUID().lowercasedString, journeyID: journey.id, appID: journey.appID,
                version: journey.version, subject: subject.text, state: .ready, stepID: "", resumeStep: first.id,
                dueAt: now, enteredAt: now, entryKey: "signal:\(signal.id)")
            entries.append((run, Self.minimumGap(definition.entry)))
        }
        return (complete, entries)
    }

    static func minimumGap(_ rule: JourneyEntryRule) -> Int64? {
        switch rule {
        case .once: .max
        case .onceEvery(let days): Int64(days) * 86_400_000
        case .everyTime: nil
        }
    }

    static func triggers(_ trigger: JourneyTrigger, _ signal: JourneySignal) -> Bool {
        switch (trigger, signal.kind) {
        case (.event(let match), .event): return matches(match, signal)
        case (.attribute(let key, let becomes), .attribute):
            guard key == signal.name else { return false }
            guard let becomes else { return true }
            return signal.value.flatMap { try? JSONValue.parse($0) } == becomes
        default: return false
        }
    }

    static func matches(_ match: JourneyEventMatch, _ signal: JourneySignal) -> Bool {
        let attributes = signal.attributes.flatMap { try? JSONValue.parse($0) }?.objectValue
        return match.matches(type: signal.name, value: signal.value, attributes: attributes)
    }

    /// An exit condition ends the run; otherwise the event a wait listens for sends it on at once.
    static func reaction(
        to signal: JourneySignal, of run: JourneyRunRecord, in definition: JourneyDefinition, now: Int64
    )
        -> JourneyRunChange?
    {
        if let exit = definition.exits.first(where: { matches($0, signal) }) {
            return ending(run, at: run.stepID, reason: JourneyStepper.exitReason(exit), now: now)
        }
        guard run.state == .waiting, run.waitEvent == signal.name, let step = definition.step(run.stepID),
            case .wait(.forEvent(let match, _, _, _)) = step.kind, matches(match, signal)
        else { return nil }
        var woken = run
        woken.state = .ready
        woken.resumeStep = run.onEventStep
        woken.dueAt = now
        woken.waitEvent = nil
        woken.onEventStep = nil
        return JourneyRunChange(run: woken, expectedEpoch: run.epoch, counts: [])
    }

    static func ending(_ run: JourneyRunRecord, at stepID: String, reason: String, now: Int64) -> JourneyRunChange {
        var ended = run
        ended.state = reason == "completed" ? .completed : .exited
        ended.stepID = stepID
        ended.resumeStep = nil
        ended.dueAt = nil
        ended.waitEvent = nil
        ended.onEventStep = nil
        ended.endedAt = now
        ended.endReason = reason
        var counts = [JourneyCount(stepID: stepID, metric: "exited:" + reason, count: 1)]
        if reason.hasPrefix("event:"), let lastSend = run.lastSendStep {
            counts.append(JourneyCount(stepID: lastSend, metric: "converted", count: 1))
        }
        return JourneyRunChange(run: ended, expectedEpoch: run.epoch, counts: counts)
    }

    // MARK: Walking

    func walkDueRuns() throws -> Int {
        let now = clock.now.millisecondsSince1970
        let runs = try store.claimJourneyRuns(
            owner: id, now: now, leaseUntil: now + Int64(configuration.lease.seconds * 1000),
            limit: configuration.batchSize)
        guard !runs.isEmpty else { return 0 }
        var changes: [JourneyRunChange] = []
        for run in runs {
            do {
                changes.append(try walk(run))
            } catch {
                // The claim lapses and the run is walked again; its messages are keyed by the walk.
                logger.error("journey run failed: \(error)", metadata: ["run_id": run.id, "journey_id": run.journeyID])
            }
        }
        // The claim's walks in one transaction, with the deliveries their messages decided; a message whose
        // audience was too large to decide in the walk is resolved right after.
        let leaseUntil = now + Int64(resolver.configuration.lease.seconds * 1000)
        let written = try store.commitJourneyRuns(changes, owner: id, leaseUntil: leaseUntil)
        var queued = false
        for (change, stored) in zip(changes, written) where stored {
            for message in change.messages {
                queued = true
                guard change.deliveries[message.id] == nil else { continue }
                let step = try resolver.resolveChunk(message, cursor: nil, resolver: id)
                if step?.finished != true { try store.releaseResolution(messageID: message.id, resolver: id) }
            }
        }
        if queued { deliveriesQueued.withLock { $0 }?() }
        return runs.count
    }

    /// Where the run goes from its due step, with the messages it sends, not yet written.
    func walk(_ run: JourneyRunRecord) throws -> JourneyRunChange {
        let date = clock.now
        let now = date.millisecondsSince1970
        guard let definition = try catalog.definition(journeyID: run.journeyID, version: run.version),
            let subject = JourneySubject(run.subject)
        else {
            return Self.ending(run, at: run.stepID, reason: "missing_version", now: now)
        }
        let facts = StoreJourneyFacts(
            store: store, appID: run.appID, subject: subject, now: now, journey: (run.journeyID, run.version))
        let advance = try JourneyStepper(journeyID: run.journeyID, definition: definition).advance(
            from: run.resumeStep, subject: run.subject, enteredAt: run.enteredAt, now: now, facts: facts)
        var messages: [MessageRecord] = []
        var deliveries: [String: [MessageDelivery]] = [:]
        var testSends: [String: String] = [:]
        var counts = advance.visited.map { JourneyCount(stepID: $0, metric: "entered", count: 1) }
        for (index, stepID) in advance.sends.enumerated() {
            guard case .send(var body) = definition.step(stepID)?.kind else { continue }
            body = Self.stepMessage(body, winner: advance.winners[stepID])
            body["target"] = subject.target
            body["campaign_id"] = .string(JourneyStepTest.splitKey(journeyID: run.journeyID, stepID: stepID))
            do {
                let messageID = "msg_\(run.id)_\(run.walks)_\(index)"
                let message = try composer.compose(body, appID: run.appID, messageID: messageID, now: date).record
                // The person's deliveries are decided now, to be stored with the walk (a message held for later
                // is resolved when it is due, as any campaign).
                if message.state == .resolving, let decided = try resolver.deliveriesOfSmallAudience(message) {
                    deliveries[messageID] = decided
                }
                messages.append(message)
                if advance.tested.contains(stepID) { testSends[messageID] = stepID }
            } catch let error as MessageError {
                // Validated when stored; what can still fail is what changed since (the app's settings).
                counts.append(JourneyCount(stepID: stepID, metric: "failed", count: 1))
                logger.error(
                    "journey step's message refused: \(error)", metadata: ["journey_id": run.journeyID, "step": stepID])
            }
        }
        var change: JourneyRunChange
        switch advance.outcome {
        case .waiting(let at, let until, let resume, let event, let onEvent):
            var waiting = run
            waiting.state = .waiting
            waiting.stepID = at
            waiting.resumeStep = resume
            waiting.dueAt = until
            waiting.waitEvent = event?.type
            waiting.onEventStep = onEvent
            change = JourneyRunChange(run: waiting, expectedEpoch: run.epoch, counts: [])
        case .ended(let at, let reason):
            var walked = run
            walked.lastSendStep = advance.sends.last ?? run.lastSendStep
            change = Self.ending(walked, at: at.isEmpty ? run.stepID : at, reason: reason, now: now)
        }
        change.run.walks = run.walks + 1
        change.run.lastSendStep = advance.sends.last ?? run.lastSendStep
        change.messages = messages
        change.deliveries = deliveries
        change.testSends = testSends
        change.counts = counts + change.counts
        return change
    }

    /// A send step's message as a person gets it: without its split test's rule (the step runs the test, not
    /// the message), and once the test is decided with only the winning variant. The control share stays, so
    /// the same people as in the test are held back (the draw is keyed by the step's campaign id).
    static func stepMessage(_ message: [String: JSONValue], winner: String?) -> [String: JSONValue] {
        var body = message
        body["winner"] = nil
        guard let winner, let variants = body["variants"]?.arrayValue else { return body }
        let kept = variants.filter { $0["id"]?.stringValue == winner }
        // A winner the message no longer names (an unreadable test) leaves the variants as written.
        if !kept.isEmpty { body["variants"] = .array(kept) }
        return body
    }
}
