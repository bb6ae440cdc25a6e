/// One person's way through one version of a journey.
///
/// A run in `ready` or `waiting` is due at ``dueAt``: the engine claims it (fencing it with ``epoch``), walks
/// it from ``resumeStep`` and commits where it stops, with the messages it sent, in one transaction.
public struct JourneyRunRecord: Sendable, Hashable {
    public enum State: String, Sendable {
        /// Due to walk on from ``resumeStep`` (just entered, or woken by an event).
        case ready
        /// At a wait step until ``dueAt`` or, with ``waitEvent``, a matching event.
        case waiting
        case completed
        case exited

        public var isActive: Bool { self == .ready || self == .waiting }
    }

    public var id: String
    public var journeyID: String
    public var appID: String
    public var version: Int
    /// `user:ID` or `installation:ID`.
    public var subject: String
    public var state: State
    /// The step the person is at: the wait holding them, or the last step they passed; `""` before the first.
    public var stepID: String
    /// Where the walk goes on when due; nil: past the last step.
    public var resumeStep: String?
    public var dueAt: Int64?
    /// The event type a `for_event` wait listens for.
    public var waitEvent: String?
    /// Where such an event sends the person (nil: past the last step).
    public var onEventStep: String?
    public var enteredAt: Int64
    public var endedAt: Int64?
    public var endReason: String?
    /// What entered them (a signal, a schedule's day): one entry per key, however often it is processed.
    public var entryKey: String
    /// How many walks the run has made: names the messages of the next one, so a walk repeated after a crash
    /// sends nothing twice.
    public var walks: Int
    /// The send step whose push the person got last: an exit by an exit event counts as its conversion.
    public var lastSendStep: String?
    /// Bumped by every claim and every change made from outside the claim: a commit must name the current one.
    public var epoch: Int64

    public init(
        id: String, journeyID: String, appID: String, version: Int, subject: String, state: State, stepID: String,
        resumeStep: String?, dueAt: Int64?, waitEvent: String? = nil, onEventStep: String? = nil, enteredAt: Int64,
        endedAt: Int64? = nil, endReason: String? = nil, entryKey: String, walks: Int = 0, epoch: Int64 = 0,
        lastSendStep: String? = nil
    ) {
        self.id = id
        self.journeyID = journeyID
        self.appID = appID
        self.version = version
        self.subject = subject
        self.state = state
        self.stepID = stepID
        self.resumeStep = resumeStep
        self.dueAt = dueAt
        self.waitEvent = waitEvent
        self.onEventStep = onEventStep
        self.enteredAt = enteredAt
        self.endedAt = endedAt
        self.endReason = endReason
        self.entryKey = entryKey
        self.walks = walks
        self.epoch = epoch
        self.lastSendStep = lastSendStep
    }
}
