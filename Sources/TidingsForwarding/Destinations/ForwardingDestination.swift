import TidingsModel
import TidingsStore

/// Somewhere a destination's batches go: a Treasure Data table, a webhook, a directory of NDJSON files.
///
/// ``deliver(_:)`` returns once the destination holds the whole batch (a 2xx answer, bytes synced to disk);
/// only then does the worker move the destination's cursor. It may be called again with the same events
/// (after a failure, a restart, a replay): receivers de-duplicate by each event's `event_id`.
public protocol ForwardingDestination: Sendable {
    /// The most events one ``deliver(_:)`` takes (Treasure Data's ingest API takes 500 records at most).
    var maximumBatchSize: Int { get }
    /// Sends `batch`. - Throws: ``ForwardingFailure``, retryable or not.
    func deliver(_ batch: ForwardingBatch) async throws(ForwardingFailure)
    /// Releases what the destination holds open (a file); called once when its worker stops.
    func close()
}

/// Events on their way to one destination, already filtered, each as the JSON object that leaves.
public struct ForwardingBatch: Sendable, Hashable {
    /// Stable for the same range of the same destination, so a receiver can also de-duplicate whole batches:
    /// `<forwarder id>-<first sequence>-<last sequence>`.
    public var id: String
    public var forwarderID: String
    public var appID: String
    /// The events in sequence order (so in order per installation), with the filter's fields removed.
    public var events: [ForwardedEvent]

    public init(id: String, forwarderID: String, appID: String, events: [ForwardedEvent]) {
        self.id = id
        self.forwarderID = forwarderID
        self.appID = appID
        self.events = events
    }
}

/// One event as it leaves: the stored event and the fields the destination may see.
public struct ForwardedEvent: Sendable, Hashable {
    public var stored: StoredEvent
    /// The event's wire JSON plus `received_at`, without the filter's dropped fields.
    public var fields: [String: JSONValue]
    /// The fields the filter removed, which destinations with their own shape (Treasure Data) leave out too.
    public var droppedFields: [String]

    public init(stored: StoredEvent, fields: [String: JSONValue], droppedFields: [String] = []) {
        self.stored = stored
        self.fields = fields
        self.droppedFields = droppedFields
    }
}
