/// A journey's row: its name, state and current version, and what triggers it (for matching without reading
/// the definition).
public struct JourneyRecord: Sendable, Hashable {
    public enum State: String, Sendable, CaseIterable {
        /// Stored, not started: no one enters.
        case draft
        case active
        /// No one enters and no step runs; those in it wait where they are.
        case paused
        /// No one enters; those in it finish.
        case archived
    }

    public var id: String
    public var appID: String
    public var name: String
    public var state: State
    /// The version new entries take.
    public var version: Int
    /// `event`, `attribute` or `schedule`.
    public var triggerKind: String
    /// The event type or attribute key of the trigger; `""` for a schedule.
    public var triggerKey: String
    public var createdAt: Int64
    public var updatedAt: Int64

    public init(
        id: String, appID: String, name: String, state: State, version: Int, triggerKind: String, triggerKey: String,
        createdAt: Int64, updatedAt: Int64
    ) {
        self.id = id
        self.appID = appID
        self.name = name
        self.state = state
        self.version = version
        self.triggerKind = triggerKind
        self.triggerKey = triggerKey
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}
