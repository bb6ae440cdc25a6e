/// Something a person did that journeys may react to (enter, exit, wake a wait), queued durably for the
/// engine: written in the transaction that stores the event or the attribute change, removed once handled.
public struct JourneySignal: Sendable, Hashable {
    public enum Kind: String, Sendable {
        case event
        /// An attribute changed; ``name`` is its key (`user.KEY` for the user profile's attribute KEY) and
        /// ``value`` its new value as JSON (`null` when removed).
        case attribute
    }

    /// Assigned by the store, increasing.
    public var id: Int64
    public var appID: String
    public var kind: Kind
    /// The event type or the attribute key.
    public var name: String
    /// Empty for a change to a user profile, which is no installation's.
    public var installationID: String
    public var userID: String?
    public var value: String?
    /// The event's attributes as a JSON object's text.
    public var attributes: String?
    public var occurredAt: Int64

    public init(
        id: Int64 = 0, appID: String, kind: Kind, name: String, installationID: String, userID: String?,
        value: String?, attributes: String?, occurredAt: Int64
    ) {
        self.id = id
        self.appID = appID
        self.kind = kind
        self.name = name
        self.installationID = installationID
        self.userID = userID
        self.value = value
        self.attributes = attributes
        self.occurredAt = occurredAt
    }
}
