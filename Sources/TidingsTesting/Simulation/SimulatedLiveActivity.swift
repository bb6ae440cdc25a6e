import TidingsModel

/// A Live Activity on a simulated iPhone, as ActivityKit keeps it: started by a push-to-start push,
/// changed by updates sent to its own update token, ended by an end push.
public struct SimulatedLiveActivity: Sendable, Hashable {
    public enum Phase: String, Sendable, Hashable {
        case active
        case ended
    }

    /// The `tidingsActivityID` the server put in the attributes, the id Tidings addresses it by.
    public var id: String
    public var attributesType: String
    public var attributes: JSONValue
    /// The last `content-state` shown.
    public var contentState: JSONValue
    public var phase: Phase
    /// The update token ActivityKit gave this activity, lower-case hex.
    public var updateToken: String
    /// The newest `timestamp` applied; ActivityKit drops a push older than the state it shows.
    public var timestamp: Int64
    /// Updates applied (the start and the end not counted).
    public var updates = 0
    /// Pushes dropped because their `timestamp` was older than the state shown.
    public var outdatedPushes = 0
    public var staleDate: Int64?
    public var dismissalDate: Int64?
    public var relevanceScore: Double?
}
