import TidingsModel

/// What journeys keep in the store: journeys and their immutable versions, one row per person in a journey (a
/// run), the entry history the entry rules read, per-step counts, and the durable queue of signals.
///
/// Runs are claimed like deliveries: a claim takes due runs that no live owner holds and bumps their epoch; a
/// commit names the epoch it was decided under and changes nothing when it moved on (another instance took
/// the run over, or an exit event ended it). A walk's messages are stored in its commit's transaction, so a
/// step sends once across instances and restarts.
public protocol JourneyStore: Sendable {
    /// Stores a journey with its first version.
    /// - Throws: ``StoreError/Code/conflict`` when the id is taken.
    func createJourney(_ journey: JourneyRecord, definition: String) throws
    func journey(appID: String, id: String) throws -> JourneyRecord?
    /// The app's journeys, newest first; every app's when `appID` is nil.
    func journeys(appID: String?) throws -> [JourneyRecord]
    /// The definition of one version, as stored.
    func journeyVersion(journeyID: String, version: Int) throws -> JourneyVersionRecord?
    /// Every version of the journey, oldest first.
    func journeyVersions(journeyID: String) throws -> [JourneyVersionRecord]
    /// Stores `definition` as the journey's next version, which new entries take; returns the journey, nil when
    /// the app has no such journey.
    func addJourneyVersion(
        appID: String, journeyID: String, name: String, definition: String, triggerKind: String, triggerKey: String,
        now: Int64
    ) throws -> JourneyRecord?
    /// Moves the journey to `state` when it is in one of `from`; nil when there is no such journey.
    /// - Throws: ``StoreError/Code/conflict`` naming the current state when it is in none of them.
    func setJourneyState(
        appID: String, journeyID: String, to state: JourneyRecord.State, from: Set<JourneyRecord.State>, now: Int64
    ) throws -> JourneyRecord?

    /// Enters people, in one transaction: each run is stored when the journey is active, the person is in no run
    /// of it, the entry rule lets them in again after `minimumGap` milliseconds since their last entry (nil: any
    /// time; `.max`: never again), and its `entryKey` was not used before; the journey's entry counts move
    /// either way. Returns each entry's outcome, in order.
    func enterJourneys(_ entries: [(run: JourneyRunRecord, minimumGap: Int64?)]) throws -> [JourneyEntryOutcome]
    /// Claims up to `limit` runs of active journeys due at `now` that no live owner holds, for `owner` until
    /// `leaseUntil`, bumping their epochs; concurrent callers never get the same run.
    func claimJourneyRuns(owner: String, now: Int64, leaseUntil: Int64, limit: Int) throws -> [JourneyRunRecord]
    /// Writes each change (the run; its messages, resolved with their deliveries when the change has them and
    /// otherwise held by `owner` until `leaseUntil` for resolution; its counts) when the run's epoch is still
    /// `change.expectedEpoch`, releasing the claim, all in one transaction. A message whose id is already stored is left as it is (a repeated walk). Returns, in order,
    /// whether each was written; one whose epoch moved on changes nothing.
    func commitJourneyRuns(_ changes: [JourneyRunChange], owner: String?, leaseUntil: Int64?) throws -> [Bool]
    /// The runs in progress (`ready` or `waiting`) of the given subjects in the app.
    func activeJourneyRuns(appID: String, subjects: [String]) throws -> [JourneyRunRecord]
    /// Up to `limit` of the events of type `type` that occurred at or after `since`, of the user `userID` when
    /// given, else of the installation: what a step asks of the person's past ("did they buy since entering?").
    func journeySubjectEvents(
        appID: String, userID: String?, installationID: String?, type: String, since: Int64, limit: Int
    ) throws -> [JourneySignal]
    /// The journey's counts by step and metric.
    func journeyCounts(journeyID: String) throws -> [JourneyCount]
    /// How many runs in progress are at each step of the journey.
    func journeyRunsInProgress(journeyID: String) throws -> [String: Int]

    /// The oldest `limit` signals still queued.
    func journeySignals(limit: Int) throws -> [JourneySignal]
    /// Removes handled signals.
    func removeJourneySignals(ids: [Int64]) throws

    /// ``Store/insertEvents(appID:events:receivedAt:)``, queuing a ``JourneySignal`` in the same transaction for
    /// each new event whose type is in `signalling`.
    func insertEvents(appID: String, events: [TidingsEvent], receivedAt: Int64, signalling: Set<String>) throws
        -> [Bool]
    /// The same insert without waiting for it, as ``Store/insertEvents(appID:events:receivedAt:completion:)``.
    func insertEvents(
        appID: String, events: [TidingsEvent], receivedAt: Int64, signalling: Set<String>,
        completion: @escaping @Sendable (Result<[Bool], any Error>) -> Void)
}

extension JourneyStore {
    /// Enters one person (``enterJourneys(_:)``).
    public func enterJourney(_ run: JourneyRunRecord, minimumGap: Int64?) throws -> JourneyEntryOutcome {
        try enterJourneys([(run, minimumGap)])[0]
    }

    /// Writes one change (``commitJourneyRuns(_:owner:leaseUntil:)``).
    public func commitJourneyRun(_ change: JourneyRunChange, owner: String?, leaseUntil: Int64?) throws -> Bool {
        try commitJourneyRuns([change], owner: owner, leaseUntil: leaseUntil)[0]
    }

    /// The waiting form, answered before returning: for a backend that does not write in groups.
    public func insertEvents(
        appID: String, events: [TidingsEvent], receivedAt: Int64, signalling: Set<String>,
        completion: @escaping @Sendable (Result<[Bool], any Error>) -> Void
    ) {
        completion(
            Result { try insertEvents(appID: appID, events: events, receivedAt: receivedAt, signalling: signalling) })
    }
}

extension JourneySignal {
    /// The signal of a newly stored event.
    public init(appID: String, event: TidingsEvent) {
        self.init(
            appID: appID, kind: .event, name: event.type.rawValue, installationID: event.installationID,
            userID: event.userID, value: event.value, attributes: event.attributes.map { JSONText.string(.object($0)) },
            occurredAt: event.occurredAt)
    }
}
