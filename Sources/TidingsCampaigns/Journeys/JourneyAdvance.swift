/// What a run did in one go, from the step it was due at to where it stops: the steps it passed (each counts
/// as entered), the send steps among them in order, and where it now waits or how it ended.
public struct JourneyAdvance: Sendable, Hashable {
    public enum Outcome: Sendable, Hashable {
        /// Holds at the wait step `at` until `until` (unix milliseconds), then goes on at `resume` (nil: the
        /// end); with `event`, a matching event of the person's sends it to `onEvent` at once.
        case waiting(at: String, until: Int64, resume: String?, event: JourneyEventMatch?, onEvent: String?)
        /// Ended at step `at` (the last one it passed) for `reason`: `completed`, `exit_step`, `control` or
        /// `event:TYPE` for an exit condition.
        case ended(at: String, reason: String)
    }

    public var visited: [String]
    public var sends: [String]
    public var outcome: Outcome
    /// The send steps among ``sends`` whose message went as written to a person in its split test's share.
    public var tested: Set<String> = []
    /// The send steps among ``sends`` whose split test was decided: the one variant each sends.
    public var winners: [String: String] = [:]
}
