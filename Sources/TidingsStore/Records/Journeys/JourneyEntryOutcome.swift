/// What became of an attempt to enter a person into a journey.
public enum JourneyEntryOutcome: String, Sendable {
    case entered
    /// They are in it now: once at a time.
    case alreadyIn = "already_in"
    /// The entry rule keeps them out (once, or not again so soon).
    case entryRule = "entry_rule"
    /// This entry key was processed before (a repeated signal).
    case repeated
    /// The journey is not active.
    case inactive
}
