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
    /// Whether ``deliver(_:)`` may run for several batches at once (an HTTP endpoint); false for a destination
    /// that writes one stream in order (a file).
    var takesBatchesSideBySide: Bool { get }
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

/// One event as it leaves: its stored columns and the fields the destination may not see.
///
/// Its JSON object (the wire format of `GET /v1/events` with `received_at`, minus ``droppedFields``) is
/// written straight from the row by ``write(into:)``; ``fields`` builds the same object as a dictionary.
public struct ForwardedEvent: Sendable, Hashable {
    public var row: ForwardingEventRow
    /// The fields the filter removed, which destinations with their own shape (Treasure Data) leave out too.
    public var droppedFields: [String]

    public init(row: ForwardingEventRow, droppedFields: [String] = []) {
        self.row = row
        self.droppedFields = droppedFields
    }

    /// The event's JSON object as a dictionary (the bytes ``write(into:)`` writes, parsed).
    public var fields: [String: JSONValue] {
        var bytes: [UInt8] = []
        write(into: &bytes)
        return (try? JSONValue.parse(bytes))?.objectValue ?? [:]
    }

    /// Appends the event's JSON object: compact, keys sorted, absent values left out.
    public func write(into bytes: inout [UInt8]) {
        ForwardedEventJSON.write(self, into: &bytes)
    }
}
